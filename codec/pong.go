package codec

// Pong echoes a Ping: the same ID and Time. A server moves Time later by
// how long the ping waited before it was answered (the round trip its
// sender measures is then the network's: server.pongHold); a client
// echoes it as it came.
//
//	0      0x9<<4 (flags zero)
//	1      connection tag
//	2..    ID, varint (uint32)
//	       Time, uint64 LE, the Ping's (plus the server's wait)
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
