package wire

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Bundle is one sealed tic as the relay sends it to every player and
// spectator (layout in webdoom_cmd.go): the in-game mask, the mask of cmds
// the relay fabricated (the slot's last cmd repeated), and the 4 ticcmds.
type Bundle struct {
	Tic        uint32
	InGame     uint8
	Fabricated uint8
	Cmds       [Slots]TicCmd
}

// Length is the encoded size, BundleSize.
func (m *Bundle) Length() int { return BundleSize }

// Append appends the 38-byte encoding of m to b.
func (m *Bundle) Append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, m.Tic)
	b = append(b, m.InGame, m.Fabricated)
	for i := range m.Cmds {
		b = append(b, m.Cmds[i][:]...)
	}
	return b
}

// ParseBundle decodes a bundle from the front of b and returns it
// with the number of bytes used.
func ParseBundle(b []byte) (Bundle, int, error) {
	var m Bundle
	if len(b) < BundleSize {
		return m, 0, fmt.Errorf("bundle of %d bytes: %w (%w)", len(b), ErrTruncated, io.ErrUnexpectedEOF)
	}
	m.Tic = binary.LittleEndian.Uint32(b)
	m.InGame, m.Fabricated = b[4], b[5]
	for i := range m.Cmds {
		copy(m.Cmds[i][:], b[6+i*TicCmdSize:])
	}
	return m, BundleSize, nil
}

// DecodeBundleMessage decodes one whole WebSocket message as a
// bundle; any other length fails with ErrSize.
func DecodeBundleMessage(msg []byte) (Bundle, error) {
	if len(msg) != BundleSize {
		return Bundle{}, fmt.Errorf("bundle message of %d bytes, want %d: %w", len(msg), BundleSize, ErrSize)
	}
	m, _, err := ParseBundle(msg)
	return m, err
}
