package codec

// PageHashRequest asks the server for the hashes of Count world pages from
// page First of the world after Tick (the client's world hash disagreed at
// Tick). The server answers with PageHashes (several if they do not fit in
// one datagram), or not at all if Tick is out of its history.
//
//	0      0x5<<4 (flags zero)
//	1      connection tag
//	2..    Tick, varint (uint32)
//	       First page, varint
//	       Count, varint (1..MaxPages)
type PageHashRequest struct {
	Tag   uint8
	Tick  uint32
	First uint32
	Count uint32
}

// MaxPages bounds page numbers and counts (2^24 pages).
const MaxPages = 1 << 24

// Length returns the encoded length.
func (m *PageHashRequest) Length() int {
	return shortHeaderLen + uvarintLen(uint64(m.Tick)) + uvarintLen(uint64(m.First)) + uvarintLen(uint64(m.Count))
}

// Append appends the encoding to b.
func (m *PageHashRequest) Append(b []byte) []byte {
	b = append(b, byte(TypePageHashRequest)<<4, m.Tag)
	b = appendUvarint(b, uint64(m.Tick))
	b = appendUvarint(b, uint64(m.First))
	return appendUvarint(b, uint64(m.Count))
}

// ParsePageHashRequest parses a PageHashRequest from the start of b.
func ParsePageHashRequest(b []byte) (PageHashRequest, int, error) {
	var m PageHashRequest
	flags, tag, err := parseShortHeader(b, TypePageHashRequest)
	if err != nil {
		return m, 0, err
	}
	if flags != 0 {
		return m, 0, errMalformedf("page hash request flags %#x", flags)
	}
	m.Tag = tag
	p := shortHeaderLen
	for _, f := range []*uint32{&m.Tick, &m.First, &m.Count} {
		if *f, err = readUvarint32(b, &p); err != nil {
			return m, 0, err
		}
	}
	if m.Count == 0 || m.Count > MaxPages || m.First >= MaxPages || m.First+m.Count > MaxPages {
		return m, 0, errMalformedf("page range %d+%d", m.First, m.Count)
	}
	return m, p, nil
}
