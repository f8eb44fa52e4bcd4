package codec

import (
	"encoding/binary"
	"fmt"
	"io"
)

// WebDoomBundle is one sealed tic as the relay sends it to every player and
// spectator (layout in webdoom_cmd.go): the in-game mask, the mask of cmds
// the relay fabricated (the slot's last cmd repeated), and the 4 ticcmds.
type WebDoomBundle struct {
	Tic        uint32
	InGame     uint8
	Fabricated uint8
	Cmds       [WebDoomSlots]WebDoomTicCmd
}

// Length is the encoded size, WebDoomBundleSize.
func (m *WebDoomBundle) Length() int { return WebDoomBundleSize }

// Append appends the 38-byte encoding of m to b.
func (m *WebDoomBundle) Append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, m.Tic)
	b = append(b, m.InGame, m.Fabricated)
	for i := range m.Cmds {
		b = append(b, m.Cmds[i][:]...)
	}
	return b
}

// ParseWebDoomBundle decodes a bundle from the front of b and returns it
// with the number of bytes used.
func ParseWebDoomBundle(b []byte) (WebDoomBundle, int, error) {
	var m WebDoomBundle
	if len(b) < WebDoomBundleSize {
		return m, 0, fmt.Errorf("bundle of %d bytes: %w (%w)", len(b), ErrWebDoomTruncated, io.ErrUnexpectedEOF)
	}
	m.Tic = binary.LittleEndian.Uint32(b)
	m.InGame, m.Fabricated = b[4], b[5]
	for i := range m.Cmds {
		copy(m.Cmds[i][:], b[6+i*WebDoomTicCmdSize:])
	}
	return m, WebDoomBundleSize, nil
}

// DecodeWebDoomBundleMessage decodes one whole WebSocket message as a
// bundle; any other length fails with ErrWebDoomSize.
func DecodeWebDoomBundleMessage(msg []byte) (WebDoomBundle, error) {
	if len(msg) != WebDoomBundleSize {
		return WebDoomBundle{}, fmt.Errorf("bundle message of %d bytes, want %d: %w", len(msg), WebDoomBundleSize, ErrWebDoomSize)
	}
	m, _, err := ParseWebDoomBundle(msg)
	return m, err
}
