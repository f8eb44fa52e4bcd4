package codec

import "io"

// Waiting tells a player that the server holds the match (its stall
// policy: docs/networking.md) and whom it waits for. The server sends it
// to every player with every round of ticks while the stall lasts; a
// player takes the stall as over once it hears of a tick after Tick. An
// older receiver (before the message) counts it as a bad datagram.
//
//	0      0xC<<4 (flags zero)
//	1      connection tag
//	2..    Tick, varint (uint32): the last tick run; the next one waits
//	       Players, uint64 LE: bit p set when the server waits for player p
type Waiting struct {
	Tag     uint8
	Tick    uint32
	Players uint64
}

// Length returns the encoded length.
func (m *Waiting) Length() int { return shortHeaderLen + uvarintLen(uint64(m.Tick)) + 8 }

// Append appends the encoding to b.
func (m *Waiting) Append(b []byte) []byte {
	b = append(b, byte(TypeWaiting)<<4, m.Tag)
	b = appendUvarint(b, uint64(m.Tick))
	return appendU64(b, m.Players)
}

// ParseWaiting parses a Waiting from the start of b.
func ParseWaiting(b []byte) (Waiting, int, error) {
	flags, tag, err := parseShortHeader(b, TypeWaiting)
	if err != nil {
		return Waiting{}, 0, err
	}
	if flags != 0 {
		return Waiting{}, 0, errMalformedf("Waiting flags %#x", flags)
	}
	p := shortHeaderLen
	tick, err := readUvarint32(b, &p)
	if err != nil {
		return Waiting{}, 0, err
	}
	if len(b)-p < 8 {
		return Waiting{}, 0, io.ErrUnexpectedEOF
	}
	return Waiting{Tag: tag, Tick: tick, Players: readU64(b[p:])}, p + 8, nil
}
