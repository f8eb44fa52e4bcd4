package game

import "github.com/rewindnet/rewind/world"

// View is what a game's view draws from (into a draw list, package
// draw): the world at the tick before
// the predicted one (Prev) and the predicted world (Cur), Alpha (0–1) of
// the way from one to the other at the frame's instant, the viewer's
// player id (Me, -1 for a spectator or before the welcome) and the
// canvas's size in pixels. The worlds are the session's copies: a view
// reads them and keeps nothing of them.
type View struct {
	Prev, Cur     *world.World
	Alpha         float64
	Me            int
	Width, Height int
}

// Lerp returns a moved alpha of the way to b (a view's places between
// Prev and Cur).
func (v View) Lerp(a, b float64) float64 { return a + v.Alpha*(b-a) }
