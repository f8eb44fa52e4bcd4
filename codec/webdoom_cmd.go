package codec

import (
	"encoding/binary"
	"fmt"
	"io"
)

// WebDoom's tic relay speaks two fixed binary layouts, little-endian, over
// a WebSocket (/ws/game?slot=N):
//
//	client → server, one per built tic (WebDoomCmdSize = 12 bytes):
//	  0  u32 tic
//	  4  ticcmd (8 bytes, opaque to the relay)
//
//	server → client, one sealed bundle per tic (WebDoomBundleSize = 38):
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
	// WebDoomSlots is the width of every WebDoom session (slots 0..3).
	WebDoomSlots = 4
	// WebDoomTicCmdSize is the size of one DOOM ticcmd.
	WebDoomTicCmdSize = 8
	// WebDoomCmdSize is the size of a client's tic message: u32 tic + ticcmd.
	WebDoomCmdSize = 4 + WebDoomTicCmdSize
	// WebDoomBundleSize is the size of a sealed bundle: u32 tic, u8 in-game
	// mask, u8 fabricated mask, 4 ticcmds.
	WebDoomBundleSize = 6 + WebDoomTicCmdSize*WebDoomSlots
)

// WebDoomTicCmd is one DOOM ticcmd as WebDoom carries it. The relay treats
// it as opaque bytes; the accessors decode DOOM's fields for tools and tests.
type WebDoomTicCmd [WebDoomTicCmdSize]byte

// ForwardMove is the ticcmd's int8 forwardmove.
func (c WebDoomTicCmd) ForwardMove() int8 { return int8(c[0]) }

// SideMove is the ticcmd's int8 sidemove.
func (c WebDoomTicCmd) SideMove() int8 { return int8(c[1]) }

// AngleTurn is the ticcmd's int16 angleturn.
func (c WebDoomTicCmd) AngleTurn() int16 { return int16(binary.LittleEndian.Uint16(c[2:])) }

// Consistancy is the ticcmd's int16 consistancy check (DOOM's spelling).
func (c WebDoomTicCmd) Consistancy() int16 { return int16(binary.LittleEndian.Uint16(c[4:])) }

// ChatChar is the ticcmd's uint8 chatchar.
func (c WebDoomTicCmd) ChatChar() uint8 { return c[6] }

// Buttons is the ticcmd's uint8 buttons.
func (c WebDoomTicCmd) Buttons() uint8 { return c[7] }

// NewWebDoomTicCmd builds a ticcmd from DOOM's fields.
func NewWebDoomTicCmd(forward, side int8, turn, consistancy int16, chat, buttons uint8) WebDoomTicCmd {
	var c WebDoomTicCmd
	c[0], c[1] = byte(forward), byte(side)
	binary.LittleEndian.PutUint16(c[2:], uint16(turn))
	binary.LittleEndian.PutUint16(c[4:], uint16(consistancy))
	c[6], c[7] = chat, buttons
	return c
}

// WebDoomCmd is a client's tic message: its ticcmd for tic Tic.
type WebDoomCmd struct {
	Tic uint32
	Cmd WebDoomTicCmd
}

// Length is the encoded size, WebDoomCmdSize.
func (m WebDoomCmd) Length() int { return WebDoomCmdSize }

// Append appends the 12-byte encoding of m to b.
func (m WebDoomCmd) Append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, m.Tic)
	return append(b, m.Cmd[:]...)
}

// ParseWebDoomCmd decodes a tic message from the front of b and returns it
// with the number of bytes used.
func ParseWebDoomCmd(b []byte) (WebDoomCmd, int, error) {
	var m WebDoomCmd
	if len(b) < WebDoomCmdSize {
		return m, 0, fmt.Errorf("tic cmd of %d bytes: %w (%w)", len(b), ErrWebDoomTruncated, io.ErrUnexpectedEOF)
	}
	m.Tic = binary.LittleEndian.Uint32(b)
	copy(m.Cmd[:], b[4:WebDoomCmdSize])
	return m, WebDoomCmdSize, nil
}

// DecodeWebDoomCmdMessage decodes one whole WebSocket message as a tic
// message; WebDoom's relay ignores any message that is not exactly 12 bytes,
// and so this fails with ErrWebDoomSize for them.
func DecodeWebDoomCmdMessage(msg []byte) (WebDoomCmd, error) {
	if len(msg) != WebDoomCmdSize {
		return WebDoomCmd{}, fmt.Errorf("tic message of %d bytes, want %d: %w", len(msg), WebDoomCmdSize, ErrWebDoomSize)
	}
	m, _, err := ParseWebDoomCmd(msg)
	return m, err
}
