package webdoom

import (
	"encoding/binary"
	"fmt"
	"io"
)

// A WAD file (DOOM's archive of lumps), as /api/ui-assets reads it:
//
//	header, 12 bytes:
//	  0  4 bytes  magic "IWAD" or "PWAD"
//	  4  int32 LE number of lumps
//	  8  int32 LE offset of the directory
//	directory, 16 bytes per lump:
//	  0  int32 LE offset of the lump's bytes
//	  4  int32 LE size of the lump
//	  8  8 bytes  name, padded with NULs
//
// The file is untrusted: a count, offset or size that does not fit the file
// never crashes the reader, and what it allocates is bounded by the file's
// size and by the caps below.
const (
	wadHeaderSize = 12
	wadEntrySize  = 16
	// wadMaxLumps caps the directory read (4 MiB of entries); the largest
	// WADs in use hold some tens of thousands of lumps.
	wadMaxLumps = 1 << 18
	// wadMaxLump caps one lump read for the UI: the lumps asked for
	// (palette, patches, title picture) are tens of KiB in every WAD.
	wadMaxLump = 1 << 20
)

// readWADLumps returns the raw bytes of the lumps named in want from the
// WAD in r, size bytes long. Where a name occurs more than once in the
// directory the first occurrence wins; a lump whose bytes lie outside the
// file (or exceed wadMaxLump) is skipped, and so is its name. order lists
// the names found, in directory order. A file that is not a WAD, or whose
// directory lies outside the file, is an error.
func readWADLumps(r io.ReaderAt, size int64, want map[string]bool) (lumps map[string][]byte, order []string, err error) {
	var hdr [wadHeaderSize]byte
	if size < wadHeaderSize {
		return nil, nil, fmt.Errorf("wad of %d bytes: no header", size)
	}
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return nil, nil, fmt.Errorf("wad header: %w", err)
	}
	if m := string(hdr[:4]); m != "IWAD" && m != "PWAD" {
		return nil, nil, fmt.Errorf("wad magic %q", m)
	}
	n := int64(int32(binary.LittleEndian.Uint32(hdr[4:])))
	dir := int64(int32(binary.LittleEndian.Uint32(hdr[8:])))
	if n < 0 || n > wadMaxLumps || dir < 0 || dir > size || n*wadEntrySize > size-dir {
		return nil, nil, fmt.Errorf("wad directory of %d lumps at %d outside the file of %d bytes", n, dir, size)
	}
	entries := make([]byte, n*wadEntrySize)
	if _, err := r.ReadAt(entries, dir); err != nil {
		return nil, nil, fmt.Errorf("wad directory: %w", err)
	}
	lumps = map[string][]byte{}
	seen := map[string]bool{}
	for e := entries; len(e) >= wadEntrySize; e = e[wadEntrySize:] {
		name := wadName(e[8:16])
		if !want[name] || seen[name] {
			continue
		}
		seen[name] = true
		ofs := int64(int32(binary.LittleEndian.Uint32(e)))
		n := int64(int32(binary.LittleEndian.Uint32(e[4:])))
		if ofs < 0 || n < 0 || n > wadMaxLump || ofs > size || n > size-ofs {
			continue
		}
		b := make([]byte, n)
		if _, err := r.ReadAt(b, ofs); err != nil && !(err == io.EOF && n == 0) {
			return nil, nil, fmt.Errorf("wad lump %s: %w", name, err)
		}
		lumps[name] = b
		order = append(order, name)
	}
	return lumps, order, nil
}

// wadName is a directory entry's name as WebDoom's server reads it:
// Node's "ascii" decoding (each byte's low 7 bits) with the trailing NULs
// removed.
func wadName(b []byte) string {
	var s [8]byte
	for i, c := range b {
		s[i] = c & 0x7f
	}
	end := len(b)
	for end > 0 && s[end-1] == 0 {
		end--
	}
	return string(s[:end])
}
