package rewind

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/world"
)

// viewSession returns a single-player session of a testgame with a world
// of about bytes bytes, played for half a second with a view drawing, so
// that the view's worlds exist.
func viewSession(tb testing.TB, bytes int) (*Session[testgame.Input], time.Time) {
	tb.Helper()
	s, err := Play[testgame.Input](&testgame.Game{Bytes: bytes}, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	s.SetInput(testgame.Input{DX: 1})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 500 {
		now = now.Add(time.Millisecond)
		if err := s.Update(now); err != nil {
			tb.Fatal(err)
		}
		s.ViewBetween(now, func(prev, cur *world.World, alpha float64) {})
	}
	return s, now
}

// publishTick copies the predicted world and the one before it for the
// view as Update does after a tick (forced: the key is forgotten).
func publishTick(s *Session[testgame.Input], now time.Time) {
	s.mu.Lock()
	s.view.filled = false
	s.publish(now)
	s.mu.Unlock()
}

// TestViewNoAllocs: once the view's worlds exist, neither a tick's copies
// for the view (publish, in Update) nor a frame (View, ViewBetween)
// allocates.
func TestViewNoAllocs(t *testing.T) {
	s, now := viewSession(t, 1<<16)
	var sum int
	draw := func(prev, cur *world.World, alpha float64) { sum += cur.UsedBytes() + prev.UsedBytes() }
	if a := testing.AllocsPerRun(100, func() { publishTick(s, now) }); a != 0 {
		t.Errorf("a tick's copies for the view: %v allocations", a)
	}
	if a := testing.AllocsPerRun(100, func() {
		now = now.Add(4 * time.Millisecond)
		s.ViewBetween(now, draw)
		s.View(now, func(w *world.World, alpha float64) { sum += w.UsedBytes() })
	}); a != 0 {
		t.Errorf("a frame: %v allocations", a)
	}
	if sum == 0 {
		t.Fatal("the view drew nothing")
	}
}

// BenchmarkViewPublish measures what a view costs a session per tick: the
// copies of the predicted world and of the tick before it (2 ×
// World.UsedBytes, the B/s column) made after every tick once a view has
// drawn.
func BenchmarkViewPublish(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16, 1 << 20} {
		b.Run(fmt.Sprintf("world=%dKiB", n>>10), func(b *testing.B) {
			s, now := viewSession(b, n)
			b.SetBytes(int64(2 * s.cli.World().UsedBytes()))
			b.ReportAllocs()
			for b.Loop() {
				publishTick(s, now)
			}
		})
	}
}
