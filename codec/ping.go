package codec

import "io"

// Ping asks the peer to echo it with a Pong carrying the same ID and Time;
// the sender measures the round trip from its own clock. It may be sent
// before Welcome with tag 0.
//
//	0      0x8<<4 (flags zero)
//	1      connection tag
//	2..    ID, varint (uint32)
//	       Time, uint64 LE: the sender's clock, opaque to the peer
type Ping struct {
	Tag  uint8
	ID   uint32
	Time uint64
}

// Length returns the encoded length.
func (m *Ping) Length() int { return shortHeaderLen + uvarintLen(uint64(m.ID)) + 8 }

// Append appends the encoding to b.
func (m *Ping) Append(b []byte) []byte {
	return appendPingPong(b, TypePing, m.Tag, m.ID, m.Time)
}

// ParsePing parses a Ping from the start of b.
func ParsePing(b []byte) (Ping, int, error) {
	tag, id, t, n, err := parsePingPong(b, TypePing)
	return Ping{Tag: tag, ID: id, Time: t}, n, err
}

func appendPingPong(b []byte, typ Type, tag uint8, id uint32, t uint64) []byte {
	b = append(b, byte(typ)<<4, tag)
	b = appendUvarint(b, uint64(id))
	return appendU64(b, t)
}

func parsePingPong(b []byte, typ Type) (tag uint8, id uint32, t uint64, n int, err error) {
	flags, tag, err := parseShortHeader(b, typ)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	if flags != 0 {
		return 0, 0, 0, 0, errMalformedf("%v flags %#x", typ, flags)
	}
	p := shortHeaderLen
	if id, err = readUvarint32(b, &p); err != nil {
		return 0, 0, 0, 0, err
	}
	if len(b)-p < 8 {
		return 0, 0, 0, 0, io.ErrUnexpectedEOF
	}
	return tag, id, readU64(b[p:]), p + 8, nil
}
