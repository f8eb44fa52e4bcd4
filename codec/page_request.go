package codec

import "fmt"

// PageRequest asks the server for the contents of some world pages of the
// world after Tick (those whose hashes differed). The server answers with a
// world transfer (WorldChunk messages) of id Transfer, chosen by the client,
// whose blob the world package reads as a paged delta — or, with Whole,
// as a whole world (the client's pages could not be repaired).
//
//	0      0x7<<4 | flags: bit 0 = Whole (then n is 0 and no pages
//	       follow); other bits 0
//	1      connection tag
//	2..    Tick, varint (uint32)
//	       Transfer id, varint
//	       n, varint (1..MaxPagesPerRequest)
//	       n page numbers, ascending: the first as a varint, each later
//	       one as a varint of its gap to the one before minus 1
type PageRequest struct {
	Tag      uint8
	Tick     uint32
	Transfer uint32
	// Whole asks for the whole world at Tick instead of pages.
	Whole bool
	// Pages are the page numbers, strictly ascending (ParsePageRequest
	// allocates them).
	Pages []uint32
}

// MaxPagesPerRequest bounds the pages of one PageRequest.
const MaxPagesPerRequest = 512

// Length returns the encoded length.
func (m *PageRequest) Length() int {
	n := shortHeaderLen + uvarintLen(uint64(m.Tick)) + uvarintLen(uint64(m.Transfer)) + uvarintLen(uint64(len(m.Pages)))
	for i, pg := range m.Pages {
		if i == 0 {
			n += uvarintLen(uint64(pg))
		} else {
			n += uvarintLen(uint64(pg - m.Pages[i-1] - 1))
		}
	}
	return n
}

// Append appends the encoding to b. Pages must be strictly ascending.
func (m *PageRequest) Append(b []byte) []byte {
	flags := byte(0)
	if m.Whole {
		flags = 1
	}
	b = append(b, byte(TypePageRequest)<<4|flags, m.Tag)
	b = appendUvarint(b, uint64(m.Tick))
	b = appendUvarint(b, uint64(m.Transfer))
	b = appendUvarint(b, uint64(len(m.Pages)))
	for i, pg := range m.Pages {
		if i == 0 {
			b = appendUvarint(b, uint64(pg))
		} else {
			b = appendUvarint(b, uint64(pg-m.Pages[i-1]-1))
		}
	}
	return b
}

// ParsePageRequest parses a PageRequest from the start of b.
func ParsePageRequest(b []byte) (PageRequest, int, error) {
	var m PageRequest
	flags, tag, err := parseShortHeader(b, TypePageRequest)
	if err != nil {
		return m, 0, err
	}
	if flags&^1 != 0 {
		return m, 0, errMalformedf("page request flags %#x", flags)
	}
	m.Whole = flags&1 != 0
	m.Tag = tag
	p := shortHeaderLen
	var n uint32
	for _, f := range []*uint32{&m.Tick, &m.Transfer, &n} {
		if *f, err = readUvarint32(b, &p); err != nil {
			return m, 0, err
		}
	}
	if m.Whole {
		if n != 0 {
			return m, 0, errMalformedf("whole-world request with %d pages", n)
		}
		return m, p, nil
	}
	if n == 0 || n > MaxPagesPerRequest {
		return m, 0, fmt.Errorf("%w: %d pages requested", ErrMalformed, n)
	}
	m.Pages = make([]uint32, 0, min(int(n), len(b)-p))
	var pg uint64
	for i := 0; i < int(n); i++ {
		v, err := readUvarint(b, &p)
		if err != nil {
			return m, 0, err
		}
		if i == 0 {
			pg = v
		} else {
			pg += v + 1
		}
		if pg >= MaxPages {
			return m, 0, errMalformedf("page %d", pg)
		}
		m.Pages = append(m.Pages, uint32(pg))
	}
	return m, p, nil
}
