package codec

import (
	"io"
)

// PageHashes answers a PageHashRequest: the 64-bit hashes of pages First,
// First+1, ... of the world after Tick, and how many pages that world has.
//
//	0      0x6<<4 (flags zero)
//	1      connection tag
//	2..    Tick, varint (uint32)
//	       First page, varint
//	       Total pages in the world, varint (<= MaxPages)
//	       n, varint (1..MaxHashesPerMessage; First+n <= Total)
//	       n hashes, uint64 LE each
type PageHashes struct {
	Tag   uint8
	Tick  uint32
	First uint32
	Total uint32
	// Hashes are the page hashes (ParsePageHashes allocates them, at most
	// MaxHashesPerMessage).
	Hashes []uint64
}

// MaxHashesPerMessage is the most page hashes one datagram carries.
const MaxHashesPerMessage = (MaxDatagram - shortHeaderLen - 4*4) / 8

// Length returns the encoded length.
func (m *PageHashes) Length() int {
	return shortHeaderLen + uvarintLen(uint64(m.Tick)) + uvarintLen(uint64(m.First)) +
		uvarintLen(uint64(m.Total)) + uvarintLen(uint64(len(m.Hashes))) + 8*len(m.Hashes)
}

// Append appends the encoding to b.
func (m *PageHashes) Append(b []byte) []byte {
	b = append(b, byte(TypePageHashes)<<4, m.Tag)
	b = appendUvarint(b, uint64(m.Tick))
	b = appendUvarint(b, uint64(m.First))
	b = appendUvarint(b, uint64(m.Total))
	b = appendUvarint(b, uint64(len(m.Hashes)))
	for _, h := range m.Hashes {
		b = appendU64(b, h)
	}
	return b
}

// ParsePageHashes parses a PageHashes from the start of b.
func ParsePageHashes(b []byte) (PageHashes, int, error) {
	var m PageHashes
	flags, tag, err := parseShortHeader(b, TypePageHashes)
	if err != nil {
		return m, 0, err
	}
	if flags != 0 {
		return m, 0, errMalformedf("page hashes flags %#x", flags)
	}
	m.Tag = tag
	p := shortHeaderLen
	var n uint32
	for _, f := range []*uint32{&m.Tick, &m.First, &m.Total, &n} {
		if *f, err = readUvarint32(b, &p); err != nil {
			return m, 0, err
		}
	}
	if n == 0 || n > MaxHashesPerMessage || m.Total > MaxPages || uint64(m.First)+uint64(n) > uint64(m.Total) {
		return m, 0, errMalformedf("page hashes %d+%d of %d", m.First, n, m.Total)
	}
	if len(b)-p < 8*int(n) {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Hashes = make([]uint64, n)
	for i := range m.Hashes {
		m.Hashes[i] = readU64(b[p:])
		p += 8
	}
	return m, p, nil
}
