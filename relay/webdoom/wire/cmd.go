package wire

import (
	"encoding/binary"
	"fmt"
	"io"
)

// WebDoom's tic relay speaks two fixed binary layouts, little-endian, over
// a WebSocket (/ws/game?slot=N):
//
//	client → server, one per built tic (CmdSize = 12 bytes):
//	  0  u32 tic
//	  4  ticcmd (8 bytes, opaque to the relay)
//
//	server → client, one sealed bundle per tic (BundleSize = 38):
//	  0  u32 tic
//	  4  u8  in-game mask    (bit N = slot N playing)
//	  5  u8  fabricated mask (bit N = the relay made slot N's cmd)
//	  6  4 × ticcmd, slot order
//
// The ticcmd is DOOM's: int8 forwardmove, int8 sidemove, int16 angleturn,
// int16 consistancy, uint8 chatchar, uint8 buttons.
//
// Version history: these layouts are WebDoom's and have one version; the
// bundle's fabricated mask was added by WebDoom before rewind spoke it.
const (
	// Slots is the width of every WebDoom session (slots 0..3).
	Slots = 4
	// TicCmdSize is the size of one DOOM ticcmd.
	TicCmdSize = 8
	// CmdSize is the size of a client's tic message: u32 tic + ticcmd.
	CmdSize = 4 + TicCmdSize
	// BundleSize is the size of a sealed bundle: u32 tic, u8 in-game
	// mask, u8 fabricated mask, 4 ticcmds.
	BundleSize = 6 + TicCmdSize*Slots
)

// TicCmd is one DOOM ticcmd as WebDoom carries it. The relay treats
// it as opaque bytes; the accessors decode DOOM's fields for tools and tests.
type TicCmd [TicCmdSize]byte

// ForwardMove is the ticcmd's int8 forwardmove.
func (c TicCmd) ForwardMove() int8 { return int8(c[0]) }

// SideMove is the ticcmd's int8 sidemove.
func (c TicCmd) SideMove() int8 { return int8(c[1]) }

// AngleTurn is the ticcmd's int16 angleturn.
func (c TicCmd) AngleTurn() int16 { return int16(binary.LittleEndian.Uint16(c[2:])) }

// Consistancy is the ticcmd's int16 consistancy check (DOOM's spelling).
func (c TicCmd) Consistancy() int16 { return int16(binary.LittleEndian.Uint16(c[4:])) }

// ChatChar is the ticcmd's uint8 chatchar.
func (c TicCmd) ChatChar() uint8 { return c[6] }

// Buttons is the ticcmd's uint8 buttons.
func (c TicCmd) Buttons() uint8 { return c[7] }

// NewTicCmd builds a ticcmd from DOOM's fields.
func NewTicCmd(forward, side int8, turn, consistancy int16, chat, buttons uint8) TicCmd {
	var c TicCmd
	c[0], c[1] = byte(forward), byte(side)
	binary.LittleEndian.PutUint16(c[2:], uint16(turn))
	binary.LittleEndian.PutUint16(c[4:], uint16(consistancy))
	c[6], c[7] = chat, buttons
	return c
}

// Cmd is a client's tic message: its ticcmd for tic Tic.
type Cmd struct {
	Tic uint32
	Cmd TicCmd
}

// Length is the encoded size, CmdSize.
func (m Cmd) Length() int { return CmdSize }

// Append appends the 12-byte encoding of m to b.
func (m Cmd) Append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, m.Tic)
	return append(b, m.Cmd[:]...)
}

// ParseCmd decodes a tic message from the front of b and returns it
// with the number of bytes used.
func ParseCmd(b []byte) (Cmd, int, error) {
	var m Cmd
	if len(b) < CmdSize {
		return m, 0, fmt.Errorf("tic cmd of %d bytes: %w (%w)", len(b), ErrTruncated, io.ErrUnexpectedEOF)
	}
	m.Tic = binary.LittleEndian.Uint32(b)
	copy(m.Cmd[:], b[4:CmdSize])
	return m, CmdSize, nil
}

// DecodeCmdMessage decodes one whole WebSocket message as a tic
// message; WebDoom's relay ignores any message that is not exactly 12 bytes,
// and so this fails with ErrSize for them.
func DecodeCmdMessage(msg []byte) (Cmd, error) {
	if len(msg) != CmdSize {
		return Cmd{}, fmt.Errorf("tic message of %d bytes, want %d: %w", len(msg), CmdSize, ErrSize)
	}
	m, _, err := ParseCmd(msg)
	return m, err
}
