package world

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// Worlds are raw little-endian memory on every supported target (amd64,
// arm64, wasm); endian_big.go stops a build for a big-endian machine,
// which would disagree on every hash.

// World is a game's whole simulation state as plain bytes laid out by a
// Layout. Game code reads and writes it through the handles its schema
// returned (Table, Grid, Value, RNG). A World is not safe for concurrent
// use.
type World struct {
	layout *Layout
	mem    []byte // arena, 8-byte aligned, len == layout.size

	compression Compression
	sc          *coderScratch // encode/decode buffers, made on first use
	stage       *World        // decode staging world, made on first decode
	stageDirty  bool          // stage may hold bytes breaking invariants
}

// New freezes the schema (on its first call) and returns an empty world:
// every table empty, every grid cell and value zero. It returns the
// schema's first registration error, if any.
func New(s *Schema) (*World, error) {
	l, err := s.freeze()
	if err != nil {
		return nil, err
	}
	return NewFromLayout(l), nil
}

// NewFromLayout returns an empty world of layout l.
func NewFromLayout(l *Layout) *World {
	w := &World{layout: l, mem: alignedBytes(l.size)}
	w.writeHeader()
	return w
}

func alignedBytes(n int) []byte {
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), n)
}

func (w *World) writeHeader() {
	binary.LittleEndian.PutUint64(w.mem[0:8], w.layout.hash)
}

// Layout returns the world's layout.
func (w *World) Layout() *Layout { return w.layout }

// Reset empties the world: every table empty, every cell and value zero.
func (w *World) Reset() {
	// Backwards: tables before the meta regions holding their lengths.
	for i := len(w.layout.regions) - 1; i >= 0; i-- {
		r := &w.layout.regions[i]
		clear(w.mem[r.off : r.off+w.used(r)])
	}
	w.writeHeader()
}

// tableLen reads a table's length from the meta region.
func (w *World) tableLen(lenOff int) int {
	return int(*(*uint32)(unsafe.Pointer(&w.mem[lenOff])))
}

func (w *World) setTableLen(lenOff, n int) {
	*(*uint32)(unsafe.Pointer(&w.mem[lenOff])) = uint32(n)
}

// used returns the bytes in use of region r.
func (w *World) used(r *region) int {
	if r.lenOff < 0 {
		return r.capBytes
	}
	return w.tableLen(r.lenOff) * r.elem
}

// UsedBytes returns the number of bytes in use: what a snapshot copies and
// what the hash covers.
func (w *World) UsedBytes() int {
	n := 0
	for i := range w.layout.regions {
		n += w.used(&w.layout.regions[i])
	}
	return n
}

// Hash returns the world hash: xxh3 64-bit over the bytes in use, region
// by region in layout order (h = xxh3(meta); then for each table and grid
// h = xxh3(h ‖ xxh3(its bytes in use)), both 8-byte little-endian). The
// meta region starts with the layout hash and holds the table lengths, so
// worlds of different layouts or lengths hash differently. It equals the
// Hash of a snapshot of the world and does not allocate.
func (w *World) Hash() uint64 {
	l := w.layout
	h := xxh3.Hash(w.mem[:l.metaSize])
	for i := 1; i < len(l.regions); i++ {
		r := &l.regions[i]
		h = chainHash(h, xxh3.Hash(w.mem[r.off:r.off+w.used(r)]))
	}
	return h
}

// chainHash folds a region's hash into the running world hash.
func chainHash(h, r uint64) uint64 {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], h)
	binary.LittleEndian.PutUint64(b[8:], r)
	return xxh3.Hash(b[:])
}

// CopyFrom makes w byte-identical to src, which must share its layout.
func (w *World) CopyFrom(src *World) error {
	if src.layout.hash != w.layout.hash {
		return fmt.Errorf("world: copy: %w", ErrLayout)
	}
	// Meta regions last: w's old lengths are needed to zero its old tails.
	l := w.layout
	for i := 1; i < len(l.regions); i++ {
		r := &l.regions[i]
		if r.snapOff >= 0 {
			continue
		}
		nu, ou := src.used(r), w.used(r)
		copy(w.mem[r.off:r.off+nu], src.mem[r.off:r.off+nu])
		if ou > nu {
			clear(w.mem[r.off+nu : r.off+ou])
		}
	}
	for i := len(l.regions) - 1; i >= 0; i-- {
		if r := &l.regions[i]; r.snapOff >= 0 {
			copy(w.mem[r.off:r.off+r.capBytes], src.mem[r.off:r.off+r.capBytes])
		}
	}
	return nil
}

// Equal reports whether two worlds of the same layout hold the same bytes.
func (w *World) Equal(o *World) bool {
	if w.layout.hash != o.layout.hash {
		return false
	}
	for i := range w.layout.regions {
		r := &w.layout.regions[i]
		u := w.used(r)
		if u != o.used(r) || string(w.mem[r.off:r.off+u]) != string(o.mem[r.off:r.off+u]) {
			return false
		}
	}
	return true
}

// check panics if a handle of layout lh is used with w: a broken program,
// like an out-of-range index.
func (w *World) check(lh uint64) {
	if w.layout.hash != lh {
		panic("world: handle used with a world of another layout (or before New)")
	}
}
