package codec

import "github.com/rewindnet/rewind/codec/reliable"

// WorldAck tells the server which chunks of a world transfer the client
// holds (chunk indices as sequence numbers).
//
//	0      0x4<<4 (flags zero)
//	1      connection tag
//	2..    Transfer id, varint
//	       Ack.Next, varint
//	       Ack.Mask, varint
type WorldAck struct {
	Tag      uint8
	Transfer uint32
	Ack      reliable.Ack
}

// Length returns the encoded length.
func (m *WorldAck) Length() int {
	return shortHeaderLen + uvarintLen(uint64(m.Transfer)) + uvarintLen(uint64(m.Ack.Next)) + uvarintLen(m.Ack.Mask)
}

// Append appends the encoding to b.
func (m *WorldAck) Append(b []byte) []byte {
	b = append(b, byte(TypeWorldAck)<<4, m.Tag)
	b = appendUvarint(b, uint64(m.Transfer))
	b = appendUvarint(b, uint64(m.Ack.Next))
	return appendUvarint(b, m.Ack.Mask)
}

// ParseWorldAck parses a WorldAck from the start of b.
func ParseWorldAck(b []byte) (WorldAck, int, error) {
	var m WorldAck
	flags, tag, err := parseShortHeader(b, TypeWorldAck)
	if err != nil {
		return m, 0, err
	}
	if flags != 0 {
		return m, 0, errMalformedf("world ack flags %#x", flags)
	}
	m.Tag = tag
	p := shortHeaderLen
	if m.Transfer, err = readUvarint32(b, &p); err != nil {
		return m, 0, err
	}
	if m.Ack.Next, err = readUvarint32(b, &p); err != nil {
		return m, 0, err
	}
	if m.Ack.Mask, err = readUvarint(b, &p); err != nil {
		return m, 0, err
	}
	return m, p, nil
}
