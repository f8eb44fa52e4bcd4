package sand

import (
	"math/bits"
	"unsafe"

	"github.com/rewindnet/rewind/world"
)

// chunk is the width of the chunks whose changes fall tracks.
const chunk = 32

func chunksOf(n int) int { return (n + chunk - 1) / chunk }

// fall moves sand and water one step, bottom row first. Sand falls
// straight, or slides down a diagonal; it sinks through water. Water also
// flows sideways toward a drop within flowReach cells. The row's scan
// direction alternates with row and tick, and the side a grain tries first
// comes from a hash of its place and the tick, so no side is favoured and
// nothing but the world and the tick decides.
//
// Rows are cut into chunks of 32 cells, and a chunk is skipped when
// neither it, nor its neighbours, nor the three chunks below have changed
// since the tick before last: its grains were looked at then, with the
// same cells around them (a grain reads at most flowReach < 32 cells to
// either side, in its row and the one below), and none could move, so
// none can now. (Which side a grain tries first changes with the tick, but
// a grain with no free side stays put either way.) The chunks' "changed"
// ticks live in the world, so the skip is part of the deterministic state
// like everything else, and a restored world brings its own.
//
// Of a chunk next to a changed one, only the word (eight cells) next to
// it is sure to be looked at: the others read cells of their own chunk
// only, so they can move only after a grain near them moved in the same
// scan, and the scan goes on past the word only then (scanRow).
//
// In the cells it looks at, fall reads eight cells at a time (one 64-bit
// word of the row, and of the cells around them: see grainsFree) and looks
// one by one only at the grains that have a free cell next to them: a
// resting grain costs a fraction of an instruction, and the cost follows
// the grains that move rather than the grains that are. Which grains move,
// in which order, and the change ticks are exactly what looking at every
// cell of the chunks one by one gives (that scan is kept in
// oldstep_test.go, and reference_test.go compares).
func (g *Game) fall(w *world.World, tick uint32) {
	n := g.side()
	changed := g.changed.Cells(w)
	nc := chunksOf(n) // at most 64: the side is at most 2048 (see New)
	stride := nc + 1  // the chunks, then the row's own last change
	s := scan{cells: g.cells.Cells(w), n: n, tick: tick}
	// The change ticks are read without bounds checks (in wasm they cost
	// as much as the reads): changed holds n rows of stride.
	base := unsafe.Pointer(unsafe.SliceData(changed))
	tk := func(i int) uint32 { return *at(base, i) }
	for y := n - 2; y >= 0; y-- {
		h, b := y*stride, (y+1)*stride // rows y's and y+1's
		if tk(h+nc)+1 < tick && tk(b+nc)+1 < tick {
			continue // nothing changed in the row or below it lately
		}
		// The chunks that changed lately here or below.
		var core uint64
		for k := range nc {
			if tk(h+k)+1 >= tick || tk(b+k)+1 >= tick {
				core |= 1 << k
			}
		}
		s.scanRow(y, changed[h:b], changed[b:b+stride], core)
	}
}

// scan is fall's pass over the rows.
type scan struct {
	cells []Material // the whole grid
	n     int        // its side
	tick  uint32
}

// far is where the last grain moved from before one of the row moved.
const far = 1 << 30

// group returns the next group of adjacent chunks of rem in the scan's
// direction (asc: left to right), [k0, k1), and rem without them.
func group(rem uint64, asc bool) (k0, k1 int, left uint64) {
	if asc {
		k0 = bits.TrailingZeros64(rem)
		k1 = k0 + bits.TrailingZeros64(^(rem >> k0))
		return k0, k1, rem & (^uint64(0) << k1) // k1 = 64 clears all
	}
	k1 = 64 - bits.LeadingZeros64(rem)
	k0 = k1 - bits.LeadingZeros64(^(rem << (64 - k1)))
	return k0, k1, rem & (uint64(1)<<k0 - 1)
}

// span returns what scanRow scans of a row of side n for the core chunks
// [k0, k1) (the core chunks left after them are rem), in the scan's
// direction, from where the scan got (pos: the first cell not scanned, or
// the last one scanned right to left): the words from p to end (excluded)
// for sure, their cells and a word more each way; then word by word up to
// stop (excluded) while a grain moved near enough. stop is the end of the
// run of chunks to look at (the core chunks widened by one chunk each way,
// fall: a gap of two chunks or less between two groups is in the run), or
// the next group's first word. Words are given by their first cell.
func span(k0, k1 int, rem uint64, pos, n int, asc bool) (p, end, stop int) {
	x0, x1 := max(k0*chunk-8, 1), min(k1*chunk+8, n-1)
	if asc {
		p = max(x0, pos) &^ 7
		stop = (min((k1+1)*chunk, n-1) + 7) &^ 7
		if next := bits.TrailingZeros64(rem); rem != 0 && next-k1 <= 2 {
			stop = next*chunk - 8
		}
		return p, max((x1+7)&^7, p), stop
	}
	p = (min(x1, pos) - 1) &^ 7
	stop = max((k0-1)*chunk, 1)&^7 - 8
	if next := 64 - bits.LeadingZeros64(rem); rem != 0 && k0-next <= 2 {
		stop = next * chunk
	}
	return p, min(x0&^7-8, p), stop
}

// scanRow scans row y (here and next are its and the row below's change
// ticks) where plan says, in the row's direction. Past a span's cells it
// goes on word by word while a grain moved within flowReach + 1 cells
// before the word: a grain in a chunk next to a core one, away from it,
// reads cells (up to flowReach + 1 < 8 away, in its row and below) of its
// own chunk only, which did not change since it was last looked at and
// found resting (fall), so it can move only if a grain moved that near
// before it in this row's scan. Which grains move, and in which order, is
// exactly what scanning the whole runs gives (the old Step,
// oldstep_test.go, does: reference_test.go compares).
//
// The common cases are decided here without a call, on locals (in wasm a
// call, and a field read through a pointer, cost much more than natively):
// eight cells with no grain, grains with no free cell around (grainsFree),
// and a grain that falls straight down. After a grain moved, the eight
// cells' test is done again (the move may have freed a cell next to the
// next grain).
func (s *scan) scanRow(y int, here, next []uint32, core uint64) {
	n, t, nc := s.n, s.tick, len(here)-1
	// The row's words at p < n-1 end at most 7 cells into the next row,
	// which exists (the row is above the floor), so they never read past
	// the grid; their neighbours do, in row 0's first word (p-1 < 0) and
	// in the row above the floor's last (below's p+9 > n).
	row := unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.cells)), y*n) // rows y and y+1 are in the grid
	below := unsafe.Add(row, n)
	rows, belows := unsafe.Slice((*Material)(row), n), unsafe.Slice((*Material)(below), n)
	hp, np := unsafe.Pointer(unsafe.SliceData(here)), unsafe.Pointer(unsafe.SliceData(next))
	pMin, pMax := 0, n
	if y == 0 {
		pMin = 8
	}
	if len(s.cells) == (y+2)*n {
		pMax = n - 9
	}
	asc := (uint32(y)+t)&1 == 0             // left to right
	skip, last, pos, step := -1, far, n, -8 // skip: a grain that moved ahead of the scan: don't move it twice
	if asc {
		last, pos, step = -far, 0, 8
	}
	for rem := core; rem != 0; {
		var k0, k1 int
		k0, k1, rem = group(rem, asc)
		p, end, stop := span(k0, k1, rem, pos, n, asc)
		for ; ; end += step { // past the span: one more word while a grain moved near enough before it
			for ; p != end; p += step {
				if r := load(row, p); (r^r>>1)&lo == 0 {
					continue // no grain among the eight: the common case
				}
				lanes := laneMask(p, 1, n-1)
				for lanes != 0 { // until no grain of the eight left to look at moved
					var c uint64
					if p >= pMin && p <= pMax {
						c = grainsFree(load(row, p), load(row, p-1), load(row, p+1),
							load(below, p-1), load(below, p), load(below, p+1))
					} else {
						c = s.candidatesAtEdge(y*n + p - 1)
					}
					if c &= lanes; c == 0 {
						break
					}
					k := bits.TrailingZeros64(c) >> 3
					if asc { // the lanes after k are left
						lanes &= ^uint64(0) << (8*k + 8)
					} else {
						k = (63 - bits.LeadingZeros64(c)) >> 3
						lanes &= uint64(1)<<(8*k) - 1
					}
					x := p + k
					m := *(*Material)(unsafe.Add(row, x))
					if x == skip || (m != Sand && m != Water) {
						continue
					}
					if b := *(*Material)(unsafe.Add(below, x)); b == Empty || (m == Sand && b == Water) {
						// Straight down (move's first case) and moved's marks
						// (the chunks of x-1, x and x+1 are in the row: 0 < x < n-1).
						*(*Material)(unsafe.Add(row, x)), *(*Material)(unsafe.Add(below, x)) = b, m
						skip, last = -1, x
						*at(hp, x/chunk), *at(hp, nc) = t, t
						*at(np, (x-1)/chunk), *at(np, x/chunk), *at(np, (x+1)/chunk), *at(np, nc) = t, t, t, t
					} else if nx := move(rows, belows, x, y, t); nx != x {
						skip, last = moved(here, next, x, nx, t), x
					}
				}
			}
			// The word's nearest cell is p, or p+7 right to left.
			if p == stop || (asc && p > last+flowReach+1) || (!asc && p+7 < last-flowReach-1) {
				break
			}
		}
		pos = p + (8-step)/2 // the first cell not scanned, or the last one scanned
	}
}

// at returns the change tick of chunk c of the row's ticks at base
// (without a bounds check: c is in the row).
func at(base unsafe.Pointer, c int) *uint32 { return (*uint32)(unsafe.Add(base, 4*c)) }

// lo has the lowest bit of each of a word's eight cells.
const lo = 0x0101010101010101

// laneMask returns lo's bits of the cells of the word at p that are in
// [x0, x1).
func laneMask(p, x0, x1 int) uint64 {
	m := uint64(lo)
	if d := x0 - p; d > 0 {
		m &= ^uint64(0) << (8 * d)
	}
	if d := p + 8 - x1; d > 0 {
		m &= ^uint64(0) >> (8 * d)
	}
	return m
}

// candidatesAtEdge is grainsFree for the word whose left cell is cells[i+1]
// when its neighbours reach out of the grid (the first word of row 0, the
// last ones of the row above the floor): cells out of the grid read as
// Empty.
func (s *scan) candidatesAtEdge(i int) uint64 {
	c := s.cells
	return grainsFree(loadSlow(c, i+1), loadSlow(c, i), loadSlow(c, i+2),
		loadSlow(c, i+s.n), loadSlow(c, i+s.n+1), loadSlow(c, i+s.n+2))
}

// grainsFree returns, as lo's bits, which of eight cells of a row (the
// word r) may move, given the words of their left (l) and right (rt)
// neighbours and of the cells below-left (bl), below (b) and below-right
// (br) of them: sand (01) with a cell below, below-left or below-right that
// is empty or water, and water (10) with an empty cell below, below-left,
// below-right, left or right. move would leave every other cell where it
// is. The test is on the materials' two low bits: it lets through every
// cell move might move (and, for bytes no cell holds, more), never fewer.
// Words are little-endian (every target rewind builds for is, see world),
// read with one load each: Go's wasm backend does not merge byte loads, so
// binary.LittleEndian would cost eight.
func grainsFree(r, l, rt, bl, b, br uint64) uint64 {
	sand := r &^ (r >> 1) & lo  // low bits 01
	water := (r >> 1) &^ r & lo // low bits 10
	// Low bit 0: empty (00) or water (10), in any of the three below.
	sand &^= b & bl & br
	if water == 0 {
		return sand // no water: the common case, without the test below
	}
	// Low bits 00: empty, in any of the five around.
	empty := ^((b | b>>1) & (bl | bl>>1) & (br | br>>1) & (l | l>>1) & (rt | rt>>1))
	return sand | water&empty
}

// load reads the 8 cells at base+i as a little-endian word.
func load(base unsafe.Pointer, i int) uint64 {
	return *(*uint64)(unsafe.Add(base, i))
}

// loadSlow reads the 8 cells c[i:i+8] as a little-endian word, those out
// of c as Empty.
func loadSlow(c []Material, i int) uint64 {
	var v uint64
	for k := 7; k >= 0; k-- {
		v <<= 8
		if j := i + k; j >= 0 && j < len(c) {
			v |= uint64(c[j])
		}
	}
	return v
}

// moved marks the chunks a grain's move from x to nx (-1: down) changed,
// and returns nx (the cell not to move again in this row).
func moved(here, next []uint32, x, nx int, t uint32) int {
	nc := len(here) - 1
	here[x/chunk], here[nc] = t, t
	if nx >= 0 {
		here[nx/chunk] = t
		return nx
	}
	// Down, straight or diagonally: mark the chunks below around x.
	next[x/chunk], next[nc] = t, t
	if c := (x - 1) / chunk; c != x/chunk {
		next[c] = t
	}
	if c := (x + 1) / chunk; c != x/chunk && c < nc {
		next[c] = t
	}
	return -1
}

// move moves the grain at row[x] and returns its new x in this row (x if
// it stayed), or -1 if it went down into the row below.
func move(row, below []Material, x, y int, tick uint32) int {
	m := row[x]
	b := below[x]
	if b == Empty || (m == Sand && b == Water) {
		row[x], below[x] = b, m
		return -1
	}
	bl, br := below[x-1], below[x+1]
	if m == Sand {
		if bl != Empty && bl != Water && br != Empty && br != Water {
			return x // resting: the common case, decided without hashing
		}
	} else if bl != Empty && br != Empty && row[x-1] != Empty && row[x+1] != Empty {
		return x // water boxed in: the common case in a pool
	}
	h := uint32(x)*0x9E3779B1 ^ uint32(y)*0x85EBCA77 ^ tick*0xC2B2AE3D
	h ^= h >> 15
	d := 1
	if h&1 == 1 {
		d = -1
	}
	for _, dx := range [2]int{d, -d} {
		bd := below[x+dx]
		if bd == Empty || (m == Sand && bd == Water) {
			row[x], below[x+dx] = bd, m
			return -1
		}
	}
	if m == Water {
		// Water that cannot fall flows toward the nearest drop within
		// flowReach cells along its row, a cell per tick; with no drop in
		// reach it rests, so pools settle and stop costing time.
		for _, dx := range [2]int{d, -d} {
			for k := 1; k <= flowReach; k++ {
				c := x + dx*k
				if c <= 0 || c >= len(row)-1 || row[c] != Empty {
					break
				}
				if below[c] == Empty {
					row[x], row[x+dx] = Empty, m
					return x + dx
				}
			}
		}
	}
	return x
}
