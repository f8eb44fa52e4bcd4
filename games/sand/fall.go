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
// In the chunks it looks at, fall reads eight cells at a time (one 64-bit
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
	for y := n - 2; y >= 0; y-- {
		here, next := changed[y*stride:(y+1)*stride], changed[(y+1)*stride:(y+2)*stride]
		if here[nc]+1 < tick && next[nc]+1 < tick {
			continue // nothing changed in the row or below it lately
		}
		// The chunks that changed lately here or below, widened by one
		// chunk each way: the chunks to look at.
		var act uint64
		for k := range nc {
			if here[k]+1 >= tick || next[k]+1 >= tick {
				act |= 1 << k
			}
		}
		act |= act<<1 | act>>1
		act &= uint64(1)<<nc - 1
		s.scanRow(y, here, next, act)
	}
}

// scan is fall's pass over one row.
type scan struct {
	cells      []Material // the whole grid
	n          int        // its side
	tick       uint32
	y          int
	row, below []Material
	here, next []uint32 // the row's and the row below's change ticks
	skip       int      // a grain that moved ahead of the scan: don't move it twice
}

// scanRow scans row y's active chunks (the bits of act), in the row's
// direction. Adjacent active chunks make one run: scanning them one after
// the other in the scan's direction is scanning their union.
func (s *scan) scanRow(y int, here, next []uint32, act uint64) {
	n := s.n
	s.y, s.here, s.next, s.skip = y, here, next, -1
	s.row, s.below = s.cells[y*n:(y+1)*n], s.cells[(y+1)*n:(y+2)*n]
	if (uint32(y)+s.tick)&1 == 0 { // left to right
		for act != 0 {
			c0 := bits.TrailingZeros64(act)
			c1 := c0 + bits.TrailingZeros64(^(act >> c0)) // [c0, c1) are active
			act &= ^uint64(0) << c1                       // c1 = 64 clears all
			s.sweep(max(c0*chunk, 1), min(c1*chunk, n-1), true)
		}
		return
	}
	for act != 0 { // right to left
		c1 := 64 - bits.LeadingZeros64(act)
		c0 := c1 - bits.LeadingZeros64(^(act << (64 - c1)))
		act &= uint64(1)<<c0 - 1
		s.sweep(max(c0*chunk, 1), min(c1*chunk, n-1), false)
	}
}

// sweep scans the cells [x0, x1) of the row, eight at a time, left to
// right (asc) or right to left. The common cases are decided here without
// a call, on locals (in wasm a call, and a field read through a pointer,
// cost much more than natively): eight cells with no grain, grains with no
// free cell around (grainsFree), and a grain that falls straight down.
// After a grain moved, the eight cells' test is done again (the move may
// have freed a cell next to the next grain).
func (s *scan) sweep(x0, x1 int, asc bool) {
	t, skip, here, next := s.tick, s.skip, s.here, s.next
	nc := len(here) - 1
	// The row's words at p < n-1 end at most 7 cells into the next row,
	// which exists (the row is above the floor), so they never read past
	// the grid; their neighbours do, in row 0's first word (p-1 < 0) and
	// in the row above the floor's last (below's p+9 > n).
	row, below := unsafe.Pointer(&s.row[0]), unsafe.Pointer(&s.below[0])
	pMin, pMax := 0, x1
	if s.y == 0 {
		pMin = 8
	}
	if len(s.cells) == (s.y+2)*s.n {
		pMax = s.n - 9
	}
	p, end, step := x0&^7, (x1+7)&^7, 8
	if !asc {
		p, end, step = (x1-1)&^7, x0&^7-8, -8
	}
	for ; p != end; p += step {
		if r := load(row, p); (r^r>>1)&lo == 0 {
			continue // no grain among the eight: the common case
		}
		lanes := laneMask(p, x0, x1)
		for lanes != 0 { // until no grain of the eight left to look at moved
			var c uint64
			if p >= pMin && p <= pMax {
				c = grainsFree(load(row, p), load(row, p-1), load(row, p+1),
					load(below, p-1), load(below, p), load(below, p+1))
			} else {
				c = s.candidatesAtEdge(s.y*s.n + p - 1)
			}
			if c &= lanes; c == 0 {
				break
			}
			k := bits.TrailingZeros64(c) >> 3
			if !asc {
				k = (63 - bits.LeadingZeros64(c)) >> 3
			}
			if asc { // the lanes after k are left
				lanes &= ^uint64(0) << (8*k + 8)
			} else {
				lanes &= uint64(1)<<(8*k) - 1
			}
			x := p + k
			m := *(*Material)(unsafe.Add(row, x))
			if x == skip || (m != Sand && m != Water) {
				continue
			}
			if b := *(*Material)(unsafe.Add(below, x)); b == Empty || (m == Sand && b == Water) {
				// Straight down (move's first case) and moved's marks.
				*(*Material)(unsafe.Add(row, x)), *(*Material)(unsafe.Add(below, x)) = b, m
				skip = -1
				c := x / chunk
				here[c], here[nc], next[c], next[nc] = t, t, t, t
				if (x-1)/chunk != c {
					next[c-1] = t
				}
				if d := (x + 1) / chunk; d != c && d < nc {
					next[d] = t
				}
				continue
			}
			if nx := move(s.row, s.below, x, s.y, t); nx != x {
				skip = moved(here, next, x, nx, t)
			}
		}
	}
	s.skip = skip
}

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
	emptyOrWater := ^(b & bl & br)
	// Low bits 00: empty, in any of the five around.
	empty := ^((b | b>>1) & (bl | bl>>1) & (br | br>>1) & (l | l>>1) & (rt | rt>>1))
	return sand&emptyOrWater | water&empty
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
