package codec

import (
	"fmt"
	"io"
)

// ModuleChunk is one piece of the match's game module, the answer to a
// ModuleRequest. The module of Total bytes is cut into pieces of
// ModuleChunkData bytes (the last one shorter): chunk Index holds bytes
// [Index×ModuleChunkData, min((Index+1)×ModuleChunkData, Total)), so its
// length is fixed by Index and Total, which ParseModuleChunk checks. The
// player checks the whole module against the SHA-256 it asked for.
//
//	0      0xE<<4 | 1 (flag bit 0: a chunk; other bits 0)
//	1      connection tag
//	2..    Index, varint
//	       Total bytes of the module, varint (1..MaxModuleBytes)
//	       Data (the rest of the datagram: its length follows from
//	       Index and Total)
type ModuleChunk struct {
	Tag   uint8
	Index uint32
	Total uint32
	// Data aliases the parsed datagram.
	Data []byte
}

// Bounds of a module sent in chunks.
const (
	// ModuleChunkData is the module bytes of every chunk but the last.
	ModuleChunkData = 1152
	// MaxModuleBytes is the largest module the wire carries (64 MiB; a
	// player's own cap, 8 MiB by default, is checked before it keeps
	// anything).
	MaxModuleBytes = 64 << 20
	// MaxModuleChunks is the most chunks of a module.
	MaxModuleChunks = (MaxModuleBytes + ModuleChunkData - 1) / ModuleChunkData
)

// ModuleChunkLen returns the data length of chunk index of a module of
// total bytes (0 for an index past its end).
func ModuleChunkLen(index, total uint32) int {
	off := uint64(index) * ModuleChunkData
	if off >= uint64(total) {
		return 0
	}
	return int(min(uint64(total)-off, ModuleChunkData))
}

// ModuleChunks returns how many chunks a module of total bytes is cut
// into.
func ModuleChunks(total uint32) uint32 {
	return uint32((uint64(total) + ModuleChunkData - 1) / ModuleChunkData)
}

// Length returns the encoded length.
func (m *ModuleChunk) Length() int {
	return shortHeaderLen + uvarintLen(uint64(m.Index)) + uvarintLen(uint64(m.Total)) + len(m.Data)
}

// Append appends the encoding to b. Data must be the chunk's bytes
// (ModuleChunkLen long).
func (m *ModuleChunk) Append(b []byte) []byte {
	b = append(b, byte(TypeModule)<<4|1, m.Tag)
	b = appendUvarint(b, uint64(m.Index))
	b = appendUvarint(b, uint64(m.Total))
	return append(b, m.Data...)
}

// ParseModuleChunk parses a ModuleChunk from b (all of it: the data
// runs to the datagram's end).
func ParseModuleChunk(b []byte) (ModuleChunk, int, error) {
	var m ModuleChunk
	flags, tag, err := parseShortHeader(b, TypeModule)
	if err != nil {
		return m, 0, err
	}
	if flags != 1 {
		return m, 0, errMalformedf("module chunk flags %#x", flags)
	}
	m.Tag = tag
	p := shortHeaderLen
	if m.Index, err = readUvarint32(b, &p); err != nil {
		return m, 0, err
	}
	if m.Total, err = readUvarint32(b, &p); err != nil {
		return m, 0, err
	}
	switch {
	case m.Total == 0:
		return m, 0, fmt.Errorf("%w: module of 0 bytes", ErrMalformed)
	case m.Total > MaxModuleBytes:
		return m, 0, fmt.Errorf("%w: module of %d bytes", ErrTooLarge, m.Total)
	}
	n := ModuleChunkLen(m.Index, m.Total)
	if n == 0 {
		return m, 0, fmt.Errorf("%w: module chunk %d of a module of %d bytes", ErrMalformed, m.Index, m.Total)
	}
	if len(b)-p < n {
		return m, 0, io.ErrUnexpectedEOF
	}
	m.Data = b[p : p+n]
	return m, p + n, nil
}
