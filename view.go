package rewind

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/world"
)

// A view draws from copies, never from the client's live world, so that
// drawing never waits for Update and Update never waits for a frame.
//
// After every Update in which the predicted tick changed (or a rollback
// corrected the predicted world), the session
// copies the predicted world and the world of the tick before it (from
// the client's rollback ring, as predicted at the same time) into a pair
// of worlds that nobody else reads, and hands the pair over under a lock
// held for an index swap: a triple buffer of pairs, one being filled by
// Update, one ready, one being drawn. The copies are of the bytes in use
// (World.CopyFrom, World.Restore): 2 × World.UsedBytes per tick, into
// worlds allocated once. Nothing is copied until the first View or
// ViewBetween call, so a session without a view (a bot, a server test)
// pays nothing; from then on the session holds six worlds of the game's
// layout (Layout.Size bytes each).

// viewFrame is one published pair of worlds.
type viewFrame struct {
	cur, prev *world.World
	tick      uint32
}

// view is a session's triple buffer of frames. frames[back] belongs to
// Update (under Session.mu), frames[front] to the drawing view (under
// draw); ready is swapped with either under mu.
type view struct {
	on     atomic.Bool // a view has asked: Update publishes
	frames [3]viewFrame
	back   int       // Session.mu
	key    [4]uint64 // what the last published frame was of (Session.mu)
	filled bool      // a frame was published (Session.mu)

	mu     sync.Mutex // ready, fresh and the timing below
	ready  int
	fresh  bool      // frames[ready] is newer than frames[front]
	at     time.Time // the last Update's time
	alpha  float64   // client.Alpha(at)
	period time.Duration

	draw  sync.Mutex // one view at a time; Update never takes it
	front int
}

// publish copies the client's predicted world and the one before it into
// the back frame when the predicted world changed (its tick, or a
// rollback, repair or rebase; or nothing was published yet), hands it over as the ready frame, and notes Update's time and
// alpha. The caller holds s.mu.
func (s *Session[I]) publish(now time.Time) {
	v := &s.view
	st := s.cli.Stats()
	tick := st.Predicted
	// A rollback, a repair or a rebase changes the predicted world
	// without (or besides) changing its tick.
	key := [4]uint64{uint64(tick), st.Rollbacks, st.Resyncs, st.Rebases}
	swap := !v.filled || key != v.key
	if swap {
		f := &v.frames[v.back]
		live := s.cli.World()
		if f.cur == nil {
			for i := range v.frames {
				v.frames[i].cur = world.NewFromLayout(live.Layout())
				v.frames[i].prev = world.NewFromLayout(live.Layout())
			}
			v.back, v.ready, v.front = 0, 1, 2
		} else if f.cur.Layout() != live.Layout() {
			// A world of the host's settings (ClientConfig.HostSettings)
			// in place of the game's own: the back frame is the
			// publisher's alone, the others follow as they come back.
			f.cur = world.NewFromLayout(live.Layout())
			f.prev = world.NewFromLayout(live.Layout())
		}
		_ = f.cur.CopyFrom(live) // same layout: cannot fail
		if tick == 0 || !s.cli.CopyWorldAt(tick-1, f.prev) {
			// No earlier tick held (the first tick, or a jump past the
			// ring): the view sees no motion.
			_ = f.prev.CopyFrom(live)
		}
		f.tick = tick
		v.key, v.filled = key, true
	}
	a := s.cli.Alpha(now)
	v.mu.Lock()
	if swap {
		v.back, v.ready = v.ready, v.back
		v.fresh = true
	}
	v.at, v.alpha, v.period = now, a, s.period
	v.mu.Unlock()
}

// frame returns the newest published frame for drawing, and alpha at
// now; the caller holds v.draw. The first call publishes one (under
// s.mu, once).
func (s *Session[I]) frame(now time.Time) (*viewFrame, float64) {
	v := &s.view
	if !v.on.Load() {
		s.mu.Lock()
		if !v.on.Load() {
			s.publish(now)
			v.on.Store(true)
		}
		s.mu.Unlock()
	}
	v.mu.Lock()
	if v.fresh {
		v.front, v.ready = v.ready, v.front
		v.fresh = false
	}
	at, a, period := v.at, v.alpha, v.period
	v.mu.Unlock()
	// Alpha moves on from the last Update's at the tick rate: it is the
	// client's Alpha(now) but for the lead's slow slew, and stays at 1
	// once the next tick is due (the next Update brings it).
	if a < 1 && now.After(at) {
		a = min(1, a+float64(now.Sub(at))/float64(period))
	}
	return &v.frames[v.front], a
}

// View calls fn with the predicted world (as of the last tick the session
// predicted) and the fraction of the way from its tick to the next at now,
// in [0, 1], for drawing between ticks. fn draws from a copy made after
// that tick: neither Update nor Run waits for it, and it may take as long
// as a frame takes. fn must not keep the world past its return nor change
// it, and must not call View or ViewBetween. Calls of View and ViewBetween
// from several goroutines take turns.
func (s *Session[I]) View(now time.Time, fn func(w *world.World, alpha float64)) {
	s.view.draw.Lock()
	defer s.view.draw.Unlock()
	f, a := s.frame(now)
	fn(f.cur, a)
}

// ViewBetween calls fn with the worlds of the tick before the predicted
// one (prev) and of the predicted one (cur), both as predicted after the
// same tick, and alpha as View's: a view draws every object at
// prev + alpha × (cur − prev). prev equals cur at the first tick and
// after a jump the client holds no earlier tick of (a repair, a load).
// Like View, it draws from copies and never waits for Update; the same
// rules hold for fn. It does not allocate.
func (s *Session[I]) ViewBetween(now time.Time, fn func(prev, cur *world.World, alpha float64)) {
	s.view.draw.Lock()
	defer s.view.draw.Unlock()
	f, a := s.frame(now)
	fn(f.prev, f.cur, a)
}
