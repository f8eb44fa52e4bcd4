package codec

import (
	"fmt"
	"io"
)

// WorldChunk is one piece of a world transfer: a blob of Total bytes (a
// world snapshot or paged delta, opaque to the codec: the world package
// makes and reads it) cut into Count chunks. The server resends chunks
// until a WorldAck covers them; the client places each at Offset and holds
// the world when every chunk has arrived.
//
//	0      0x3<<4 (flags zero)
//	1      connection tag
//	2..    Transfer id, varint (Welcome.Transfer or PageRequest.Transfer)
//	       Tick of the world the blob describes, varint (uint32)
//	       Index of this chunk, varint (< Count)
//	       Count of chunks in the transfer, varint (1..MaxChunks)
//	       Offset of Data in the blob, varint
//	       Total length of the blob, varint (<= MaxTransfer)
//	       Data length, varint (Offset + length <= Total), then Data
type WorldChunk struct {
	Tag      uint8
	Transfer uint32
	Tick     uint32
	Index    uint32
	Count    uint32
	Offset   uint32
	Total    uint32
	// Data aliases the parsed datagram.
	Data []byte
}

// MaxChunks bounds the chunks of one transfer; MaxTransfer bounds its
// length in bytes (256 MiB).
const (
	MaxChunks   = 1 << 20
	MaxTransfer = 1 << 28
)

// MaxChunkData is the most data bytes a WorldChunk can carry in one
// datagram whatever its numbers (a conservative figure).
const MaxChunkData = MaxDatagram - shortHeaderLen - 6*5 - 3

// Length returns the encoded length.
func (m *WorldChunk) Length() int {
	return shortHeaderLen + uvarintLen(uint64(m.Transfer)) + uvarintLen(uint64(m.Tick)) +
		uvarintLen(uint64(m.Index)) + uvarintLen(uint64(m.Count)) + uvarintLen(uint64(m.Offset)) +
		uvarintLen(uint64(m.Total)) + uvarintLen(uint64(len(m.Data))) + len(m.Data)
}

// Append appends the encoding to b.
func (m *WorldChunk) Append(b []byte) []byte {
	b = append(b, byte(TypeWorldChunk)<<4, m.Tag)
	b = appendUvarint(b, uint64(m.Transfer))
	b = appendUvarint(b, uint64(m.Tick))
	b = appendUvarint(b, uint64(m.Index))
	b = appendUvarint(b, uint64(m.Count))
	b = appendUvarint(b, uint64(m.Offset))
	b = appendUvarint(b, uint64(m.Total))
	b = appendUvarint(b, uint64(len(m.Data)))
	return append(b, m.Data...)
}

// ParseWorldChunk parses a WorldChunk from the start of b.
func ParseWorldChunk(b []byte) (WorldChunk, int, error) {
	var m WorldChunk
	flags, tag, err := parseShortHeader(b, TypeWorldChunk)
	if err != nil {
		return m, 0, err
	}
	if flags != 0 {
		return m, 0, errMalformedf("world chunk flags %#x", flags)
	}
	m.Tag = tag
	p := shortHeaderLen
	for _, f := range []*uint32{&m.Transfer, &m.Tick, &m.Index, &m.Count, &m.Offset, &m.Total} {
		if *f, err = readUvarint32(b, &p); err != nil {
			return m, 0, err
		}
	}
	l, err := readUvarint(b, &p)
	if err != nil {
		return m, 0, err
	}
	if l > uint64(len(b)-p) {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Data = b[p : p+int(l)]
	p += int(l)
	switch {
	case m.Count == 0 || m.Count > MaxChunks || m.Index >= m.Count:
		return m, 0, fmt.Errorf("%w: chunk %d of %d", ErrMalformed, m.Index, m.Count)
	case m.Total > MaxTransfer:
		return m, 0, fmt.Errorf("%w: transfer of %d bytes", ErrTooLarge, m.Total)
	case uint64(m.Offset)+l > uint64(m.Total):
		return m, 0, fmt.Errorf("%w: chunk [%d, %d) past the transfer's %d bytes", ErrMalformed, m.Offset, uint64(m.Offset)+l, m.Total)
	}
	return m, p, nil
}
