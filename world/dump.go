package world

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/zeebo/xxh3"
)

// A world dump is a world written for offline diffing (rewind diff): it
// carries the world's Shape, so that reading and diffing it needs neither
// the game nor its types. Layout (little-endian):
//
//	magic   "RWDUMP" (6 bytes)
//	version u8 (1), reserved u8 (0)
//	tick    u32   the tick the world is the world after
//	hash    u64   the world's Hash
//	n       u32   then n bytes: the Shape as JSON
//	m       u32   then m bytes: the meta region, then the bytes in use of
//	              every table and grid, in the shape's order
//
// Dumps are not compressed: they are written once, on a desync.
const (
	dumpMagic   = "RWDUMP"
	dumpVersion = 1
	// dumpHeader is the fixed part before the shape: magic, version,
	// reserved, tick, hash, shape length.
	dumpHeader = 6 + 2 + 4 + 8 + 4
)

// Dump is a world read from a dump: its tick, hash, shape and bytes.
type Dump struct {
	// Tick is the tick the world is the world after.
	Tick uint32
	// Hash is the world's hash, checked against the bytes when read.
	Hash uint64
	// Shape describes the world field by field.
	Shape *Shape
	im    image
}

// AppendDump appends a dump of w, the world after tick, to b.
func (w *World) AppendDump(b []byte, tick uint32) []byte {
	im := w.image()
	js, err := json.Marshal(im.sh)
	if err != nil {
		panic("world: shape does not marshal: " + err.Error()) // plain fields only
	}
	b = append(b, dumpMagic...)
	b = append(b, dumpVersion, 0)
	b = binary.LittleEndian.AppendUint32(b, tick)
	b = binary.LittleEndian.AppendUint64(b, w.Hash())
	b = binary.LittleEndian.AppendUint32(b, uint32(len(js)))
	b = append(b, js...)
	n := len(im.meta)
	for _, r := range im.regions {
		n += len(r)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = append(b, im.meta...)
	for _, r := range im.regions {
		b = append(b, r...)
	}
	return b
}

// ParseDump reads a dump. Any bytes whatsoever give an error wrapping
// ErrCorrupt (or ErrMismatch: bytes that do not hash to the header's hash)
// or a dump whose shape is consistent and whose bytes hash to
// its hash; the dump aliases b.
func ParseDump(b []byte) (*Dump, error) {
	if len(b) < dumpHeader || string(b[:6]) != dumpMagic {
		return nil, fmt.Errorf("%w: not a world dump", ErrCorrupt)
	}
	if b[6] != dumpVersion {
		return nil, fmt.Errorf("%w: world dump version %d, want %d", ErrCorrupt, b[6], dumpVersion)
	}
	le := binary.LittleEndian
	d := &Dump{Tick: le.Uint32(b[8:]), Hash: le.Uint64(b[12:])}
	n := uint64(le.Uint32(b[20:]))
	rest := b[dumpHeader:]
	if n > uint64(len(rest)) {
		return nil, fmt.Errorf("%w: world dump shape of %d bytes, %d left", ErrCorrupt, n, len(rest))
	}
	sh := new(Shape)
	dec := json.NewDecoder(bytes.NewReader(rest[:n]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(sh); err != nil {
		return nil, fmt.Errorf("%w: world dump shape: %v", ErrCorrupt, err)
	}
	if err := sh.check(); err != nil {
		return nil, err
	}
	rest = rest[n:]
	if len(rest) < 4 {
		return nil, fmt.Errorf("%w: world dump truncated", ErrCorrupt)
	}
	m := uint64(le.Uint32(rest))
	rest = rest[4:]
	if m != uint64(len(rest)) || m < uint64(sh.MetaSize) {
		return nil, fmt.Errorf("%w: world dump of %d bytes, %d there", ErrCorrupt, m, len(rest))
	}
	im := image{sh: sh, meta: rest[:sh.MetaSize]}
	if le.Uint64(im.meta) != sh.LayoutHash {
		return nil, fmt.Errorf("%w: world dump of another layout", ErrCorrupt)
	}
	rest = rest[sh.MetaSize:]
	regionOf := make([]int, len(sh.Parts)) // part -> index in im.regions
	for i := range sh.Parts {
		p := &sh.Parts[i]
		size := uint64(p.Elem) * uint64(p.Count)
		if p.Kind == "value" {
			continue
		}
		regionOf[i] = len(im.regions)
		if p.Kind == "table" {
			lens := im.meta
			if p.LenPart != 0 {
				lens = im.regions[regionOf[p.LenPart-1]] // a scene's meta region: whole, checked by Shape.check
			}
			l := uint64(le.Uint32(lens[p.LenOff:]))
			if l > uint64(p.Count) {
				return nil, fmt.Errorf("%w: world dump: table %q of %d rows, capacity %d", ErrCorrupt, p.Name, l, p.Count)
			}
			size = l * uint64(p.Elem)
		}
		if size > uint64(len(rest)) {
			return nil, fmt.Errorf("%w: world dump: %q truncated", ErrCorrupt, p.Name)
		}
		im.regions = append(im.regions, rest[:size])
		rest = rest[size:]
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: world dump: %d bytes after the last region", ErrCorrupt, len(rest))
	}
	h := xxh3.Hash(im.meta)
	for _, r := range im.regions {
		h = chainHash(h, xxh3.Hash(r))
	}
	if h != d.Hash {
		return nil, fmt.Errorf("%w: world dump hashes %016x, its header says %016x", ErrMismatch, h, d.Hash)
	}
	d.Shape, d.im = sh, im
	return d, nil
}

// DiffDumps is Diff on two dumps.
func DiffDumps(a, b *Dump, limit int) ([]Difference, int, error) {
	return diffImages(a.im, b.im, limit)
}

// DiffDump is Diff between a world and a dump (of the same layout).
func (w *World) DiffDump(d *Dump, limit int) ([]Difference, int, error) {
	return diffImages(w.image(), d.im, limit)
}
