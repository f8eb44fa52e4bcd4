package codec

import (
	"encoding/binary"
	"fmt"
	"io"
)

// ModuleRequest asks the server for pieces of the match's game module (a
// WebAssembly game's bytes: docs/modules.md), named by its SHA-256, which
// the welcome's match settings carry. A player that lacks the module
// sends it after its welcome and before it takes the world; the server
// answers with a ModuleChunk for each piece asked, and the player asks
// again for what did not come. Only a welcomed connection (its tag) is
// answered, so a spoofed hello makes the server send nothing big.
//
//	0      0xE<<4 (flags zero: a request; ModuleChunk has flag bit 0)
//	1      connection tag
//	2..33  SHA-256 of the module (the server answers only for its own)
//	34..   First chunk, varint (< MaxModuleChunks)
//	       Mask, uint64 LE: bit i asks for chunk First+i (nonzero)
//
// Added within protocol version 2 (an older server counts the type as
// a bad datagram and drops it; its match then has no module to send).
type ModuleRequest struct {
	Tag uint8
	// Sum is the SHA-256 of the module's bytes.
	Sum [32]byte
	// First is the first chunk of the 64 Mask covers.
	First uint32
	// Mask says which chunks are asked: bit i for chunk First+i.
	Mask uint64
}

// Length returns the encoded length.
func (m *ModuleRequest) Length() int {
	return shortHeaderLen + 32 + uvarintLen(uint64(m.First)) + 8
}

// Append appends the encoding to b.
func (m *ModuleRequest) Append(b []byte) []byte {
	b = append(b, byte(TypeModule)<<4, m.Tag)
	b = append(b, m.Sum[:]...)
	b = appendUvarint(b, uint64(m.First))
	return binary.LittleEndian.AppendUint64(b, m.Mask)
}

// ParseModuleRequest parses a ModuleRequest from the start of b.
func ParseModuleRequest(b []byte) (ModuleRequest, int, error) {
	var m ModuleRequest
	flags, tag, err := parseShortHeader(b, TypeModule)
	if err != nil {
		return m, 0, err
	}
	if flags != 0 {
		return m, 0, errMalformedf("module request flags %#x", flags)
	}
	m.Tag = tag
	p := shortHeaderLen
	if len(b) < p+32 {
		return m, 0, io.ErrUnexpectedEOF
	}
	copy(m.Sum[:], b[p:])
	p += 32
	if m.First, err = readUvarint32(b, &p); err != nil {
		return m, 0, err
	}
	if len(b) < p+8 {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Mask = binary.LittleEndian.Uint64(b[p:])
	p += 8
	if m.Mask == 0 || m.First >= MaxModuleChunks {
		return m, 0, fmt.Errorf("%w: module request of chunks %d+%#x", ErrMalformed, m.First, m.Mask)
	}
	return m, p, nil
}
