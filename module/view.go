package module

import (
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/game"
)

// The canvas a module's view asks for (Size): contract v1 has no export
// for it; rewind_draw is told the canvas it draws on, whatever its size.
const (
	ViewWidth  = 640
	ViewHeight = 480
)

// Size returns the canvas a module's game asks for: ViewWidth ×
// ViewHeight.
func (g *Game) Size() (w, h int) { return ViewWidth, ViewHeight }

// Draw draws v.Cur through the module's rewind_draw into l (nothing for
// a module without view exports, or whose draw list is malformed or
// traps): the export runs on a copy of the world (a world of the game's
// own, kept for its views), never on v.Cur itself.
func (g *Game) Draw(v game.View, l *draw.List) {
	l.Reset()
	if !g.m.view || v.Cur == nil {
		return
	}
	alpha := int32(min(max(v.Alpha*1000, 0), 1000))
	mem, at, ok := g.viewCall(v.Cur, "rewind_draw", int32(v.Me), int32(v.Width), int32(v.Height), alpha)
	if !ok || l.Decode(mem, at) != nil {
		l.Reset()
	}
}

// Control returns the module's input for controls c (rewind_control, on
// a copy of v.Cur), or prev when it has no view exports, traps, or
// returns an address outside its memory.
func (g *Game) Control(v game.View, c draw.Controls, prev Input) Input {
	if !g.m.view || v.Cur == nil {
		return prev
	}
	mem, at, ok := g.viewCall(v.Cur, "rewind_control", int32(v.Me), int32(c.Keys&draw.AllKeys), c.X, c.Y, c.Width, c.Height)
	size := uint64(g.m.inputSize)
	if !ok || uint64(at)+size > uint64(len(mem)) {
		return prev
	}
	return InputOf(mem[at : uint64(at)+size])
}
