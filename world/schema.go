package world

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/zeebo/xxh3"
)

// DefaultPageSize is the page size of a schema unless SetPageSize says
// otherwise: 4 KiB (see docs/world.md for the measurement behind it).
const DefaultPageSize = 4096

// Limits that bound what a schema may declare (and so what a decoder may
// ever allocate).
const (
	// MaxWorldBytes is the largest world (all regions at capacity).
	MaxWorldBytes = 1 << 30
	// MinPageSize and MaxPageSize bound SetPageSize.
	MinPageSize = 512
	MaxPageSize = 1 << 16
)

// Schema collects the registrations that describe a world: tables, grids,
// single values and random number generators. Register everything, in the
// same order on every machine, then call New (as often as needed: every
// world built from one schema shares its Layout). The first New freezes the
// schema; registering afterwards is an error.
//
// Registration functions never panic: the first error is kept and returned
// by Err and by New.
type Schema struct {
	pageSize int
	regions  []*slot // tables and grids, in registration order
	values   []*slot // single values, in registration order
	names    map[string]bool
	err      error
	layout   *Layout
	scenes   []*sceneSlot // private and server-only scenes (scene.go)
}

// slot is where a handle finds its data; it is filled when the schema is
// frozen, so handles returned before New become valid after it.
type slot struct {
	name   string
	kind   regionKind
	info   plainInfo
	count  int // records (tables), cells (grids), 1 (values)
	width  int // grids
	height int // grids
	off    int // byte offset of the data in the arena
	lenOff int // byte offset of the uint32 length (tables)
	lh     uint64
	scene  *sceneSlot // nil: the public scene
}

type regionKind uint8

const (
	kindMeta regionKind = iota
	kindTable
	kindGrid
	kindValue
	kindSceneMeta // a private or server scene's table lengths and values
)

// NewSchema returns an empty schema with DefaultPageSize.
func NewSchema() *Schema {
	return &Schema{pageSize: DefaultPageSize, names: map[string]bool{}}
}

// SetPageSize sets the page size (a power of two from MinPageSize to
// MaxPageSize). Call it before registering anything.
func (s *Schema) SetPageSize(n int) {
	if s.frozenErr("page size") {
		return
	}
	if n < MinPageSize || n > MaxPageSize || n&(n-1) != 0 {
		s.fail(fmt.Errorf("%w: page size %d is not a power of two in [%d, %d]", ErrSchema, n, MinPageSize, MaxPageSize))
		return
	}
	s.pageSize = n
}

// Err returns the first registration error, or nil.
func (s *Schema) Err() error { return s.err }

func (s *Schema) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

func (s *Schema) frozenErr(what string) bool {
	if s.layout != nil {
		s.fail(fmt.Errorf("%w: %s registered after New froze the schema", ErrSchema, what))
		return true
	}
	return false
}

func (s *Schema) add(name string, kind regionKind, t reflect.Type, count, width, height int, in []Scene) *slot {
	sl := &slot{name: name, kind: kind, count: count, width: width, height: height}
	if s.frozenErr(fmt.Sprintf("%q", name)) {
		return sl
	}
	if sl.scene = s.sceneOf(name, in); s.err != nil {
		return sl
	}
	if name == "" || s.names[name] {
		s.fail(fmt.Errorf("%w: name %q is empty or already registered", ErrSchema, name))
		return sl
	}
	s.names[name] = true
	info, err := checkPlain(t)
	if err != nil {
		s.fail(fmt.Errorf("world: registering %q: %w", name, err))
		return sl
	}
	sl.info = info
	if count <= 0 || count > MaxWorldBytes || int64(count)*int64(info.size) > MaxWorldBytes {
		s.fail(fmt.Errorf("%w: %q of %s: %d elements of %d bytes is out of range", ErrSchema, name, t, count, info.size))
		return sl
	}
	if kind == kindValue {
		s.values = append(s.values, sl)
	} else {
		s.regions = append(s.regions, sl)
	}
	return sl
}

// Layout is the frozen description of a world: where every table, grid and
// value lives, the page size, and a hash of all of it. Every world built
// from one schema shares its Layout; schemas built by the same
// registrations in the same order on any machine have equal layout hashes.
type Layout struct {
	pageSize int
	size     int // arena bytes, a multiple of pageSize
	regions  []region
	hash     uint64
	desc     string
	metaSize int
	tables   int // tables whose length lives in the public meta region

	// Scenes (scene.go); all zero for a world without them.
	scenes     []sceneDesc // index 0 is the public scene
	fixedBytes int         // snapshot bytes of the meta regions, which come first

	values     []region // the single values, in registration order (json.go)
	pageRegion []int32  // region index of every page
	metaFree   [][2]int // ranges of the meta pages that are always zero
	emptyOnce  sync.Once
	emptyHash  uint64 // Hash of an empty world
	shape      *Shape // field by field, for diffs and dumps
}

// region is one contiguous, page-aligned part of the arena.
type region struct {
	name      string
	kind      regionKind
	off       int   // byte offset, page aligned
	capBytes  int   // bytes at capacity
	elem      int   // record / cell size (meta: the meta size)
	count     int   // capacity in elements
	lenOff    int   // tables: offset of the uint32 length; else -1
	bools     []int // bool offsets within an element
	stride    int   // row stride for row-difference coding
	firstPage int
	pages     int
	typ       reflect.Type // element type (not the meta region's)
	width     int          // grids: cells per row

	scene      int    // 0: public; else the index in Layout.scenes
	snapOff    int    // meta regions: where a snapshot keeps them; else -1
	lenSnap    int    // tables: where a snapshot keeps the length
	hiddenHash uint64 // scene regions: the region's hash when hidden (empty, zero)
}

// layoutMeta lays out the meta region of l after the layout hash and the
// table lengths, each value aligned, records the free bytes between them
// and the region itself, describes the values in d, and returns the
// region's size.
func (s *Schema) layoutMeta(l *Layout, d *strings.Builder) int {
	off := 8 + 4*l.tables
	var metaBools []int
	for _, v := range s.values {
		if v.scene != nil {
			continue
		}
		a := v.info.align
		aligned := (off + a - 1) / a * a
		if aligned > off {
			l.metaFree = append(l.metaFree, [2]int{off, aligned})
		}
		off = aligned
		v.off = off
		for _, b := range v.info.bools {
			metaBools = append(metaBools, off+b)
		}
		fmt.Fprintf(d, "value %q %s @%d\n", v.name, v.info.desc, off)
		l.values = append(l.values, region{name: v.name, kind: kindValue, off: off, elem: v.info.size, count: 1, lenOff: -1, typ: v.info.typ})
		off += v.info.size
	}
	ps := s.pageSize
	pagesFor := func(n int) int { return (n + ps - 1) / ps }
	end := (off + 7) / 8 * 8
	l.metaFree = append(l.metaFree, [2]int{off, pagesFor(end) * ps})
	l.metaSize = end
	l.regions = append(l.regions, region{name: "meta", kind: kindMeta, off: 0, capBytes: end, elem: end, count: 1,
		lenOff: -1, bools: metaBools, stride: 0, firstPage: 0, pages: pagesFor(end), lenSnap: -1})
	l.fixedBytes = end
	return end
}

// freeze computes the layout. Meta region: [layout hash u64][table lengths
// u32 ...][values, each aligned].
func (s *Schema) freeze() (*Layout, error) {
	if s.layout != nil {
		return s.layout, s.err
	}
	if s.err != nil {
		return nil, s.err
	}
	l := &Layout{pageSize: s.pageSize}
	var d strings.Builder
	fmt.Fprintf(&d, "rewind/world v1 page=%d\n", s.pageSize)
	ntables := 0
	for _, r := range s.regions {
		if r.kind == kindTable && r.scene == nil {
			ntables++
		}
	}
	l.tables = ntables
	off := s.layoutMeta(l, &d)
	ps := s.pageSize
	pagesFor := func(n int) int { return (n + ps - 1) / ps }
	pos := pagesFor(off) * ps
	ti := 0
	for _, r := range s.regions {
		if r.scene != nil {
			continue
		}
		if pos = s.placeRegion(l, &d, r, pos, 8+4*ti); pos < 0 {
			return nil, s.err
		}
		if r.kind == kindTable {
			ti++
		}
	}
	if pos = s.layoutScenes(l, &d, pos); pos < 0 {
		return nil, s.err
	}
	l.size = pos
	l.pageRegion = make([]int32, pos/ps)
	for ri, rg := range l.regions {
		for p := rg.firstPage; p < rg.firstPage+rg.pages; p++ {
			l.pageRegion[p] = int32(ri)
		}
	}
	l.desc = d.String()
	l.hash = xxh3.HashString(l.desc)
	for _, r := range s.regions {
		r.lh = l.hash
	}
	for _, v := range s.values {
		v.lh = l.hash
	}
	l.shape = s.buildShape(l)
	s.freezeScenes(l.hash)
	s.layout = l
	return l, nil
}

// placeRegion lays out table or grid r at pos (page aligned; a table's
// length at lenOff), describes it in d and returns the next free page's
// offset, or -1 past MaxWorldBytes.
func (s *Schema) placeRegion(l *Layout, d *strings.Builder, r *slot, pos, lenOff int) int {
	ps := s.pageSize
	rg := region{name: r.name, kind: r.kind, off: pos, capBytes: r.count * r.info.size, elem: r.info.size,
		count: r.count, lenOff: -1, bools: r.info.bools, firstPage: pos / ps, snapOff: -1, lenSnap: -1,
		typ: r.info.typ, width: r.width}
	r.off = pos
	switch r.kind {
	case kindTable:
		r.lenOff = lenOff
		rg.lenOff, rg.lenSnap = lenOff, lenOff
		rg.stride = r.info.size
		fmt.Fprintf(d, "table %q %s cap=%d\n", r.name, r.info.desc, r.count)
	case kindGrid:
		rg.stride = r.width * r.info.size
		fmt.Fprintf(d, "grid %q %s %dx%d\n", r.name, r.info.desc, r.width, r.height)
	}
	rg.pages = (rg.capBytes + ps - 1) / ps
	pos += rg.pages * ps
	if pos > MaxWorldBytes {
		s.fail(fmt.Errorf("%w: world larger than %d bytes", ErrSchema, MaxWorldBytes))
		return -1
	}
	l.regions = append(l.regions, rg)
	return pos
}

// EmptyHash returns the hash of an empty world of this layout.
func (l *Layout) EmptyHash() uint64 {
	l.emptyOnce.Do(func() { l.emptyHash = NewFromLayout(l).Hash() })
	return l.emptyHash
}

// PageSize returns the size of a page in bytes.
func (l *Layout) PageSize() int { return l.pageSize }

// Pages returns the number of pages of a world of this layout.
func (l *Layout) Pages() int { return l.size / l.pageSize }

// Size returns the bytes of a world at capacity (Pages × PageSize).
func (l *Layout) Size() int { return l.size }

// Hash returns the layout hash: equal on every machine that registered the
// same things in the same order with the same page size.
func (l *Layout) Hash() uint64 { return l.hash }

// String returns a readable description of the layout.
func (l *Layout) String() string { return l.desc }
