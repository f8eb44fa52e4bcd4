package codec

// Pong echoes a Ping: the same ID and Time.
//
//	0      0x9<<4 (flags zero)
//	1      connection tag
//	2..    ID, varint (uint32)
//	       Time, uint64 LE, copied from the Ping
type Pong struct {
	Tag  uint8
	ID   uint32
	Time uint64
}

// Length returns the encoded length.
func (m *Pong) Length() int { return shortHeaderLen + uvarintLen(uint64(m.ID)) + 8 }

// Append appends the encoding to b.
func (m *Pong) Append(b []byte) []byte {
	return appendPingPong(b, TypePong, m.Tag, m.ID, m.Time)
}

// ParsePong parses a Pong from the start of b.
func ParsePong(b []byte) (Pong, int, error) {
	tag, id, t, n, err := parsePingPong(b, TypePong)
	return Pong{Tag: tag, ID: id, Time: t}, n, err
}
