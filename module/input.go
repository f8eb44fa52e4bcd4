package module

import "encoding/binary"

// Contract v1's bounds.
const (
	// MaxPlayers is the most players a module may declare (rewind_players).
	MaxPlayers = 64
	// MaxInputSize is the most bytes of one player's input per tick
	// (rewind_input_size), and the bytes an Input holds.
	MaxInputSize = 64
)

// Input is one player's input for a tick: the module's input_size bytes
// (at most MaxInputSize), little-endian in B0..B7, the rest zero. Every
// byte pattern is valid: the engine delivers what players sent.
type Input struct {
	B0, B1, B2, B3, B4, B5, B6, B7 uint64
}

// InputOf returns the input holding b (at most MaxInputSize bytes; more
// are ignored).
func InputOf(b []byte) Input {
	var a [MaxInputSize]byte
	copy(a[:], b)
	return Input{
		binary.LittleEndian.Uint64(a[0:]), binary.LittleEndian.Uint64(a[8:]),
		binary.LittleEndian.Uint64(a[16:]), binary.LittleEndian.Uint64(a[24:]),
		binary.LittleEndian.Uint64(a[32:]), binary.LittleEndian.Uint64(a[40:]),
		binary.LittleEndian.Uint64(a[48:]), binary.LittleEndian.Uint64(a[56:]),
	}
}

// Bytes returns the input's MaxInputSize bytes.
func (in Input) Bytes() [MaxInputSize]byte {
	var a [MaxInputSize]byte
	for i, v := range [8]uint64{in.B0, in.B1, in.B2, in.B3, in.B4, in.B5, in.B6, in.B7} {
		binary.LittleEndian.PutUint64(a[i*8:], v)
	}
	return a
}

// Player statuses, the first byte of each player's record in the inputs
// buffer.
const (
	StatusAbsent  = 0
	StatusPlaying = 1
	StatusJoined  = 2
	StatusLeft    = 3
)
