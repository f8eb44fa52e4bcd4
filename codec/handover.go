package codec

import (
	"crypto/sha256"
	"encoding/binary"
	"io"
	"math/bits"
)

// Handover is what a player needs to host the match when its server goes
// (host migration): the room to meet again in, who is in the match and
// how each proves it is who it was. The server sends it over the match's
// own connection, ahead of time: with every tick for a second after it
// changed, then once a second. A client keeps the newest Version (in
// wrapping order) and ignores a malformed one.
//
//	0      0xB<<4 | flags: 0x1 open to new players, 0x2 has own player
//	1      connection tag
//	2..    Version, varint (uint32): bumped on every change
//	       Own, 1 byte, with flag 0x2: the server machine's own player
//	       TickRate, varint (1..MaxHandoverTickRate)
//	       code length, 1 byte (0..MaxHandoverCode), then the room code
//	       key length, 1 byte (0..MaxHandoverKey), then the room key
//	       players, uint64 LE: bit p set = player p is in the match
//	       per player, in id order: count, 1 byte (1..MaxHandoverDigests),
//	       then count cookie digests of HandoverDigestSize bytes
//
// A digest is the first 8 bytes of the SHA-256 of a cookie the player
// was welcomed with (the server keeps only SHA-256 sums; a cookie never
// travels but in the player's own Welcome and Hello). A player holds the
// cookie of the welcome that reached it first, so the server lists the
// digests of the welcomes it sent that player (the newest last).
//
// 16 players with one cookie each in a room of code 6 and key 32 take
// 2+1+1+1+7+33+8+16×9 = 197 bytes; 64 players with up to four digests
// would not fit a datagram (the server sends fewer digests per player
// then: HandoverFit).
type Handover struct {
	Tag      uint8
	Version  uint32
	Open     bool
	HasOwn   bool
	Own      uint8
	TickRate uint32
	Code     string
	Key      string
	Players  []HandoverPlayer // by id, ascending
}

// HandoverPlayer is one player of a Handover.
type HandoverPlayer struct {
	ID      uint8
	Digests [][HandoverDigestSize]byte
}

// Limits of a Handover.
const (
	// HandoverDigestSize is the size of a cookie digest.
	HandoverDigestSize = 8
	// MaxHandoverDigests is how many digests one player has at most.
	MaxHandoverDigests = 4
	// MaxHandoverCode is the longest room code.
	MaxHandoverCode = 16
	// MaxHandoverKey is the longest room key.
	MaxHandoverKey = 64
	// MaxHandoverTickRate is the highest tick rate.
	MaxHandoverTickRate = 1000
)

// CookieDigest returns the handover digest of a cookie's SHA-256 sum.
func CookieDigest(sum *[sha256.Size]byte) [HandoverDigestSize]byte {
	return [HandoverDigestSize]byte(sum[:HandoverDigestSize])
}

// Newer reports whether version v is newer than w in wrapping order.
func Newer(v, w uint32) bool { return int32(v-w) > 0 }

func (m *Handover) flags() byte {
	var f byte
	if m.Open {
		f |= 1
	}
	if m.HasOwn {
		f |= 2
	}
	return f
}

// Length returns the encoded length.
func (m *Handover) Length() int {
	n := shortHeaderLen + uvarintLen(uint64(m.Version)) + uvarintLen(uint64(m.TickRate)) +
		1 + len(m.Code) + 1 + len(m.Key) + 8
	if m.HasOwn {
		n++
	}
	for _, p := range m.Players {
		n += 1 + len(p.Digests)*HandoverDigestSize
	}
	return n
}

// Append appends the encoding to b. Players must be in ascending id
// order, each with 1..MaxHandoverDigests digests, and the strings within
// their limits (the parser refuses anything else).
func (m *Handover) Append(b []byte) []byte {
	b = append(b, byte(TypeHandover)<<4|m.flags(), m.Tag)
	b = appendUvarint(b, uint64(m.Version))
	if m.HasOwn {
		b = append(b, m.Own)
	}
	b = appendUvarint(b, uint64(m.TickRate))
	b = append(b, byte(len(m.Code)))
	b = append(b, m.Code...)
	b = append(b, byte(len(m.Key)))
	b = append(b, m.Key...)
	var mask uint64
	for _, p := range m.Players {
		mask |= 1 << (p.ID & 63)
	}
	b = appendU64(b, mask)
	for _, p := range m.Players {
		b = append(b, byte(len(p.Digests)))
		for _, d := range p.Digests {
			b = append(b, d[:]...)
		}
	}
	return b
}

// ParseHandover parses a Handover from the start of b.
func ParseHandover(b []byte) (Handover, int, error) {
	var m Handover
	flags, tag, err := parseShortHeader(b, TypeHandover)
	if err != nil {
		return m, 0, err
	}
	if flags&^3 != 0 {
		return m, 0, errMalformedf("handover flags %#x", flags)
	}
	m.Tag, m.Open, m.HasOwn = tag, flags&1 != 0, flags&2 != 0
	p := shortHeaderLen
	if m.Version, err = readUvarint32(b, &p); err != nil {
		return m, 0, err
	}
	if m.HasOwn {
		if p >= len(b) {
			return m, 0, io.ErrUnexpectedEOF
		}
		m.Own = b[p]
		p++
		if m.Own >= MaxPlayers {
			return m, 0, errMalformedf("handover own player %d", m.Own)
		}
	}
	if m.TickRate, err = readUvarint32(b, &p); err != nil {
		return m, 0, err
	}
	if m.TickRate == 0 || m.TickRate > MaxHandoverTickRate {
		return m, 0, errMalformedf("handover tick rate %d", m.TickRate)
	}
	if m.Code, err = readShortString(b, &p, MaxHandoverCode); err != nil {
		return m, 0, err
	}
	if m.Key, err = readShortString(b, &p, MaxHandoverKey); err != nil {
		return m, 0, err
	}
	if len(b)-p < 8 {
		return m, 0, io.ErrUnexpectedEOF
	}
	mask := binary.LittleEndian.Uint64(b[p:])
	p += 8
	if m.HasOwn && mask&(1<<m.Own) == 0 {
		return m, 0, errMalformedf("handover own player %d not in the match", m.Own)
	}
	m.Players = make([]HandoverPlayer, 0, bits.OnesCount64(mask))
	for mask != 0 {
		id := uint8(bits.TrailingZeros64(mask))
		mask &= mask - 1
		if p >= len(b) {
			return m, 0, io.ErrUnexpectedEOF
		}
		n := int(b[p])
		p++
		if n == 0 || n > MaxHandoverDigests {
			return m, 0, errMalformedf("handover player %d with %d digests", id, n)
		}
		if len(b)-p < n*HandoverDigestSize {
			return m, 0, io.ErrUnexpectedEOF
		}
		hp := HandoverPlayer{ID: id, Digests: make([][HandoverDigestSize]byte, n)}
		for i := range hp.Digests {
			hp.Digests[i] = [HandoverDigestSize]byte(b[p : p+HandoverDigestSize])
			p += HandoverDigestSize
		}
		m.Players = append(m.Players, hp)
	}
	return m, p, nil
}

// readShortString reads a string of a length byte (at most max) and that
// many bytes.
func readShortString(b []byte, pos *int, max int) (string, error) {
	if *pos >= len(b) {
		return "", io.ErrUnexpectedEOF
	}
	n := int(b[*pos])
	if n > max {
		return "", errMalformedf("string of %d bytes, at most %d", n, max)
	}
	if len(b)-*pos-1 < n {
		return "", io.ErrUnexpectedEOF
	}
	s := string(b[*pos+1 : *pos+1+n])
	*pos += 1 + n
	return s, nil
}

// HandoverFit returns how many digests per player (the newest ones) a
// Handover of these players can carry within MaxDatagram bytes, given the
// length of everything but the digests (fixed): MaxHandoverDigests when
// all fit, at least 1.
func HandoverFit(fixed, players int) int {
	for k := MaxHandoverDigests; k > 1; k-- {
		if fixed+players*k*HandoverDigestSize <= MaxDatagram {
			return k
		}
	}
	return 1
}
