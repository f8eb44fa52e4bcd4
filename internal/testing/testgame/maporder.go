package testgame

import (
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// MapOrder is the test game with a planted determinism bug, the example of
// docs/debugging.md: from tick From on, Step puts the avatars' rows in a
// Go map and pushes the avatar it meets first one cell to the right. Go
// randomizes a map's iteration order, so with two or more avatars two
// machines (or one machine stepping the same tick twice) soon disagree on
// which avatar moved: the desync debugger must name the tick, the table
// "avatars", the row and the field "X".
type MapOrder struct {
	Game
	// From is the first tick the bug acts in (0: 1).
	From uint32
}

// Step runs the test game's step, then the planted bug.
func (g *MapOrder) Step(w *world.World, t *game.Tick[Input]) {
	g.Game.Step(w, t)
	if t.Number < max(g.From, 1) {
		return
	}
	rows := make(map[int]bool, g.avatars.Len(w))
	for i := range g.avatars.Len(w) {
		rows[i] = true
	}
	for i := range rows { // the bug: iteration order reaches the world
		g.avatars.At(w, i).X++
		break
	}
}
