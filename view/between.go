package view

import (
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/examples/sand"
	"github.com/rewindnet/rewind/world"
)

// viewBetween calls fn with the worlds of the tick before the predicted
// one and of the predicted one, and the frame's fraction of a tick.
func viewBetween(s *rewind.Session[sand.Input], now time.Time, fn func(prev, cur *world.World, alpha float64)) {
	s.View(now, func(w *world.World, alpha float64) { fn(w, w, alpha) })
}
