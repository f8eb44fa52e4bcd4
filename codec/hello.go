package codec

import (
	"fmt"
	"io"
)

// CookieSize is the length of a rejoin cookie in bytes (128 bits).
const CookieSize = 16

// Hello is the client's first datagram: it asks to join (or, with a
// cookie, to rejoin as the player that cookie was given to).
//
//	0..3   Magic 0xF5 'R' 'W' 'N'
//	4      type 0xF1
//	5..6   protocol version, uint16 LE (ProtocolVersion)
//	7..14  game fingerprint, uint64 LE
//	15     flags: bit 0 = a cookie follows; other bits 0
//	16..31 rejoin cookie (only with flag bit 0)
type Hello struct {
	// Version is the client's protocol version (Append writes
	// ProtocolVersion when it is 0); ParseHello reports what the datagram
	// carried.
	Version uint16
	// Game is the game compatibility fingerprint: a hash the game computes
	// from its name, version, input schema (Schema.Fingerprint) and world
	// layout. The server refuses a Hello whose Game differs from its own.
	Game uint64
	// HasCookie says a rejoin cookie follows.
	HasCookie bool
	// Cookie is the rejoin cookie from an earlier Welcome.
	Cookie [CookieSize]byte
}

// Length returns the encoded length.
func (m *Hello) Length() int {
	if m.HasCookie {
		return longHeaderLen + 9 + CookieSize
	}
	return longHeaderLen + 9
}

// Append appends the encoding to b.
func (m *Hello) Append(b []byte) []byte {
	b = appendLongHeader(b, TypeHello, m.Version)
	b = appendU64(b, m.Game)
	if m.HasCookie {
		b = append(b, 1)
		return append(b, m.Cookie[:]...)
	}
	return append(b, 0)
}

// ParseHello parses a Hello from the start of b and returns it with its
// length. A version other than ProtocolVersion is not an error here (the
// server answers it with a Refuse); a bad magic, a truncation or unknown
// flags are.
func ParseHello(b []byte) (Hello, int, error) {
	var m Hello
	v, err := parseLongHeader(b, TypeHello)
	if err != nil {
		return m, 0, err
	}
	m.Version = v
	if len(b) < longHeaderLen+9 {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Game = readU64(b[longHeaderLen:])
	flags := b[longHeaderLen+8]
	if flags&^1 != 0 {
		return m, 0, fmt.Errorf("%w: hello flags %#x", ErrMalformed, flags)
	}
	n := longHeaderLen + 9
	if flags&1 != 0 {
		if len(b) < n+CookieSize {
			return m, 0, io.ErrUnexpectedEOF
		}
		m.HasCookie = true
		copy(m.Cookie[:], b[n:])
		n += CookieSize
	}
	return m, n, nil
}

func appendU64(b []byte, v uint64) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24),
		byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

func readU64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func appendU32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

func readU32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
