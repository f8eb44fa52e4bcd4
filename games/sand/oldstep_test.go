package sand

// The sand game's Step as it was before its cells were scanned eight at a
// time (commit c437cd4), kept as the reference the new one must equal
// bit for bit: same cells, same order of moves, same "changed" ticks, so
// the same world hash every tick (reference_test.go compares them).

import (
	"encoding/binary"
	"unsafe"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// refStep is Step as it was: it runs one tick: joins and leaves, avatars, pouring, then the cells.
func (g *Game) refStep(w *world.World, t *rewind.Tick[Input]) {
	st := g.state.Ptr(w)
	st.Tick = t.Number
	n := int32(g.side())
	for _, e := range t.Events {
		switch e.Kind {
		case rewind.Join:
			x := (int32(e.Player)*37%(n-4) + 2) * one
			_, _ = g.avatars.Add(w, Avatar{X: x, Y: 4 * one, Player: uint16(e.Player), Material: uint8(Sand)})
			st.Players++
		case rewind.Leave:
			for i := 0; i < g.avatars.Len(w); i++ {
				if g.avatars.At(w, i).Player == uint16(e.Player) {
					g.avatars.Remove(w, i)
					st.Players--
					break
				}
			}
		}
	}
	for i := 0; i < g.avatars.Len(w); i++ {
		a := g.avatars.At(w, i)
		in := t.Inputs[a.Player]
		a.VX = clamp(a.VX+int32(in.MoveX)*accel, -maxSpeed, maxSpeed) * 7 / 8
		a.VY = clamp(a.VY+int32(in.MoveY)*accel, -maxSpeed, maxSpeed) * 7 / 8
		a.X = clamp(a.X+a.VX, one, (n-2)*one)
		a.Y = clamp(a.Y+a.VY, one, (n-2)*one)
		a.Material = uint8(in.Material)
		if in.Pour && a.Pouring == 0 { // a pour starts: a sound for the view
			t.Emit(rewind.Effect{Kind: EffectPour, Args: [rewind.EffectArgs]int32{int32(a.Player), int32(in.Material)}})
		}
		a.Pouring = 0
		if in.Pour {
			a.Pouring = 1
			g.refPour(w, st, int(a.X/one), int(a.Y/one), in.Material, t.Number)
		}
	}
	g.refFall(w, t.Number)
}

// refPour fills about a quarter of the brush's cells around (cx, cy), chosen
// by the RNG.
func (g *Game) refPour(w *world.World, st *State, cx, cy int, m Material, tick uint32) {
	n := g.side()
	changed := g.changed.Cells(w)
	stride := chunksOf(n) + 1
	r := g.rng.Uint64(w)
	for y := cy - brush; y <= cy+brush; y++ {
		for x := cx - brush; x <= cx+brush; x++ {
			take := r&3 == 0 // a quarter of the brush's cells
			r >>= 2
			if !take || x <= 0 || x >= n-1 || y < 0 || y >= n-1 {
				continue
			}
			c := g.cells.At(w, x, y)
			if (m == Empty || *c == Empty) && *c != m {
				*c = m
				st.Poured++
				changed[y*stride+x/chunk] = tick
				changed[y*stride+stride-1] = tick
			}
		}
	}
}

// refFall moves sand and water one step, bottom row first. Sand falls
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
// like everything else, and costs follow the grains that move rather than
// the grains that are.
func (g *Game) refFall(w *world.World, tick uint32) {
	n := g.side()
	cells := g.cells.Cells(w)
	changed := g.changed.Cells(w)
	nc := chunksOf(n) // at most 64: the side is at most 2048 (see New)
	stride := nc + 1  // the chunks, then the row's own last change
	for y := n - 2; y >= 0; y-- {
		here, next := changed[y*stride:(y+1)*stride], changed[(y+1)*stride:(y+2)*stride]
		if here[nc]+1 < tick && next[nc]+1 < tick {
			continue // nothing changed in the row or below it lately
		}
		row := cells[y*n : (y+1)*n]
		below := cells[(y+1)*n : (y+2)*n]
		asc := (uint32(y)+tick)&1 == 0
		skip := -1 // a grain that moved ahead of the scan: don't move it twice
		// The chunks that changed lately here or below, widened by one
		// chunk each way: the chunks to look at.
		var act uint64
		for k := range nc {
			if here[k]+1 >= tick || next[k]+1 >= tick {
				act |= 1 << k
			}
		}
		act |= act<<1 | act>>1
		for i := 0; i < nc; i++ {
			c := i
			if !asc {
				c = nc - 1 - i
			}
			if act&(1<<c) == 0 {
				continue
			}
			x0, x1 := max(c*chunk, 1), min((c+1)*chunk, n-1) // [x0, x1)
			if asc {
				for x := x0; x < x1; x++ {
					if x&7 == 0 && x+8 <= x1 && !refHasGrains(row[x:x+8]) {
						x += 7
						continue
					}
					if x == skip || (row[x] != Sand && row[x] != Water) {
						continue
					}
					if nx := refMove(row, below, x, y, tick); nx != x {
						skip = refMoved(here, next, x, nx, tick)
					}
				}
			} else {
				for x := x1 - 1; x >= x0; x-- {
					if x&7 == 7 && x-7 >= x0 && !refHasGrains(row[x-7:x+1]) {
						x -= 7
						continue
					}
					if x == skip || (row[x] != Sand && row[x] != Water) {
						continue
					}
					if nx := refMove(row, below, x, y, tick); nx != x {
						skip = refMoved(here, next, x, nx, tick)
					}
				}
			}
		}
	}
}

// refMoved marks the chunks a grain's move from x to nx (-1: down) changed,
// and returns nx (the cell not to move again in this row).
func refMoved(here, next []uint32, x, nx int, t uint32) int {
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

// refMove moves the grain at row[x] and returns its new x in this row (x if
// it stayed), or -1 if it went down into the row below.
func refMove(row, below []Material, x, y int, tick uint32) int {
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

// refHasGrains reports whether any of 8 cells holds sand (01) or water (10):
// a byte whose two low bits differ.
func refHasGrains(c []Material) bool {
	v := binary.LittleEndian.Uint64(materialBytes(c))
	return (v^v>>1)&0x0101010101010101 != 0
}

// materialBytes views a row of Materials as bytes (Material is a uint8).
func materialBytes(m []Material) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(m))), len(m))
}
