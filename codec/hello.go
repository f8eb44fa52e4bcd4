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
//	15     flags: bit 0 = a cookie follows; bit 1 = a room code of 6
//	       characters follows; bit 2 = a spectator (a delay follows);
//	       bit 3 = the client takes the host's match settings (Game is
//	       then the base fingerprint); bit 4 = a longer room code follows
//	       (never with bit 1); other bits 0
//	16..31 rejoin cookie (only with flag bit 0)
//	+6     room code, 6 ASCII bytes (only with flag bit 1; after the
//	       cookie when both are set)
//	+1+N   room code of N = 7..12 ASCII bytes, N first (only with flag
//	       bit 4; where the 6-byte code would be)
//	+4     spectator's delay in milliseconds, uint32 LE (only with flag
//	       bit 2; last)
//
// The spectator flag (bit 2) was added within version 1: the server
// admits the client without a player slot (its welcome's player is
// SpectatorID) and sends it every tick no earlier than the delay after it
// ran. A server older than it drops such a hello as malformed.
//
// The room code (flag bit 1) was added within version 1: a server that
// hosts many matches on one socket (host.Multi) sends the hello to
// the match of that room; a server with one match ignores it. A server
// older than the room code refuses such a hello as malformed (it is
// dropped, and the client times out).
//
// The longer room code (flag bit 4) was added within version 1 too
// (issue 30: codes of 7 to 12 characters, which a relay draws with
// --code-length): a code of 6 characters is still sent with bit 1, as
// before, so old servers and old clients keep joining 6-character codes;
// a server older than bit 4 drops a hello with a longer code as
// malformed.
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
	// HostSettings says the client takes the host's match settings
	// (game.Configurable): Game is then the base fingerprint
	// (game.BaseFingerprint, the input schema's alone), and the client
	// checks the full one the welcome carries.
	HostSettings bool
	// Cookie is the rejoin cookie from an earlier Welcome.
	Cookie [CookieSize]byte
	// HasRoom says a room code follows.
	HasRoom bool
	// Room is the code of the room (the match) the client asks for, when
	// HasRoom: its first RoomLen bytes (RoomCodeSize when RoomLen is 0,
	// as ParseHello leaves it for the short form), printable ASCII,
	// checked by ParseHello (which match a code names is the server's
	// business). SetRoom sets both; RoomCode reads them.
	Room    [MaxRoomCodeSize]byte
	RoomLen uint8
	// Spectator asks to watch without a player slot; Delay is how far
	// behind the match, in milliseconds, the spectator is to be kept.
	Spectator bool
	Delay     uint32
}

// SpectatorID is the player id a spectator's welcome carries.
const SpectatorID = 0xFF

// RoomCodeSize is the length of a room code in a Hello's short form
// (flag bit 1): a code of relay/roomcode.Len characters (a test there
// keeps the two equal). MaxRoomCodeSize is the longest a Hello carries
// (flag bit 4; relay/roomcode.MaxLen).
const (
	RoomCodeSize    = 6
	MaxRoomCodeSize = 12
)

// roomLen is the length of the room code: RoomLen, or RoomCodeSize if 0.
func (m *Hello) roomLen() int {
	if m.RoomLen == 0 {
		return RoomCodeSize
	}
	return int(min(m.RoomLen, MaxRoomCodeSize))
}

// SetRoom sets the room code (HasRoom, Room, RoomLen); false, and m
// unchanged, if code is not RoomCodeSize to MaxRoomCodeSize bytes of
// printable ASCII.
func (m *Hello) SetRoom(code string) bool {
	if len(code) < RoomCodeSize || len(code) > MaxRoomCodeSize {
		return false
	}
	for i := range len(code) {
		if code[i] < '!' || code[i] > '~' {
			return false
		}
	}
	m.HasRoom, m.RoomLen = true, 0
	if len(code) != RoomCodeSize {
		m.RoomLen = uint8(len(code))
	}
	m.Room = [MaxRoomCodeSize]byte{}
	copy(m.Room[:], code)
	return true
}

// RoomCode returns the room code's bytes (empty without HasRoom), part of
// m.Room: a caller that keeps it copies it.
func (m *Hello) RoomCode() []byte {
	if !m.HasRoom {
		return nil
	}
	return m.Room[:m.roomLen()]
}

// Length returns the encoded length.
func (m *Hello) Length() int {
	n := longHeaderLen + 9
	if m.HasCookie {
		n += CookieSize
	}
	if m.HasRoom {
		n += m.roomLen()
		if m.roomLen() != RoomCodeSize {
			n++ // its length
		}
	}
	if m.Spectator {
		n += 4
	}
	return n
}

// Append appends the encoding to b.
func (m *Hello) Append(b []byte) []byte {
	b = appendLongHeader(b, TypeHello, m.Version)
	b = appendU64(b, m.Game)
	var flags byte
	if m.HasCookie {
		flags |= 1
	}
	long := m.HasRoom && m.roomLen() != RoomCodeSize
	switch {
	case long:
		flags |= 16
	case m.HasRoom:
		flags |= 2
	}
	if m.Spectator {
		flags |= 4
	}
	if m.HostSettings {
		flags |= 8
	}
	b = append(b, flags)
	if m.HasCookie {
		b = append(b, m.Cookie[:]...)
	}
	if long {
		b = append(b, byte(m.roomLen()))
	}
	if m.HasRoom {
		b = append(b, m.Room[:m.roomLen()]...)
	}
	if m.Spectator {
		b = appendU32(b, m.Delay)
	}
	return b
}

// ParseHello parses a Hello from the start of b and returns it with its
// length. A version other than ProtocolVersion is not an error here (the
// server answers it with a Refuse); a bad magic, a truncation or unknown
// flags are, and so is a room code with a byte outside printable ASCII.
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
	if flags&^31 != 0 || flags&18 == 18 {
		return m, 0, fmt.Errorf("%w: hello flags %#x", ErrMalformed, flags)
	}
	m.HostSettings = flags&8 != 0
	n := longHeaderLen + 9
	if flags&1 != 0 {
		if len(b) < n+CookieSize {
			return m, 0, io.ErrUnexpectedEOF
		}
		m.HasCookie = true
		copy(m.Cookie[:], b[n:])
		n += CookieSize
	}
	if flags&18 != 0 {
		size := RoomCodeSize
		if flags&16 != 0 { // a longer code: its length first
			if len(b) < n+1 {
				return m, 0, io.ErrUnexpectedEOF
			}
			size = int(b[n])
			if size <= RoomCodeSize || size > MaxRoomCodeSize {
				return m, 0, fmt.Errorf("%w: hello room code of %d bytes", ErrMalformed, size)
			}
			n++
		}
		if len(b) < n+size {
			return m, 0, io.ErrUnexpectedEOF
		}
		for _, c := range b[n : n+size] {
			if c < '!' || c > '~' {
				return m, 0, fmt.Errorf("%w: hello room code byte %#x", ErrMalformed, c)
			}
		}
		m.HasRoom = true
		if size != RoomCodeSize {
			m.RoomLen = uint8(size)
		}
		copy(m.Room[:], b[n:n+size])
		n += size
	}
	if flags&4 != 0 {
		if len(b) < n+4 {
			return m, 0, io.ErrUnexpectedEOF
		}
		m.Spectator, m.Delay = true, readU32(b[n:])
		n += 4
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
