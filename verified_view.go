package rewind

import (
	"sync"
	"sync/atomic"

	"github.com/rewindnet/rewind/world"
)

// The verified view: the world after the last tick the client has checked
// against the server's hash, beside the predicted one that View draws.
//
// Like View it reads copies, never the client's live world, through a
// triple buffer of worlds (one filled by Update, one ready, one read). A
// copy is made only when the verified world changed — a newer verified
// tick, a repair, a rebase — so a frame in which nothing was verified
// copies nothing; and nothing at all until the first VerifiedView call. The
// copy restores the snapshot the client's rollback ring already keeps of
// that tick (World.Restore: the bytes in use).

// verifiedView is a session's triple buffer of verified worlds. worlds[back]
// belongs to Update (under Session.mu), worlds[front] to the reader (under
// draw); ready is swapped with either under mu.
type verifiedView struct {
	on     atomic.Bool
	worlds [3]*world.World
	ticks  [3]uint32
	back   int
	key    [3]uint64 // what the last published world was of (Session.mu)
	filled bool      // a world was published (Session.mu)

	mu    sync.Mutex
	ready int
	fresh bool // worlds[ready] is newer than worlds[front]
	any   bool // worlds[ready] (or front) holds a verified world

	draw   sync.Mutex
	front  int
	copies atomic.Uint64 // verified worlds copied (for tests and stats)
}

// publishVerified copies the client's verified world into the back buffer
// when it changed since the last copy, and hands it over as the ready one.
// The caller holds s.mu.
func (s *Session[I]) publishVerified() {
	v := &s.verified
	t, ok := s.cli.VerifiedTick()
	if !ok {
		return // a desync waits for its repair: keep showing the last one
	}
	st := s.cli.Stats()
	key := [3]uint64{uint64(t), st.Resyncs, st.Rebases}
	if v.filled && key == v.key {
		return
	}
	if v.worlds[0] == nil {
		l := s.cli.World().Layout()
		for i := range v.worlds {
			v.worlds[i] = world.NewFromLayout(l)
		}
		v.back, v.ready, v.front = 0, 1, 2
	}
	if _, ok := s.cli.CopyVerified(v.worlds[v.back]); !ok {
		return
	}
	v.copies.Add(1)
	v.ticks[v.back] = t
	v.key, v.filled = key, true
	v.mu.Lock()
	v.back, v.ready = v.ready, v.back
	v.fresh, v.any = true, true
	v.mu.Unlock()
}

// VerifiedView calls fn with the world after the last verified tick — the
// last tick whose world this client has checked against the server's hash,
// so nothing in it will be rolled back — and that tick's number. It
// returns false without calling fn while no tick is verified yet. A view
// waits for what must never be taken back (a death, a card drawn, a score)
// to appear here before it shows it, and draws everything else from View
// (docs/effects.md says when to use which). fn reads a copy, made only
// when the verified world changed: it must not keep the world past its
// return nor change it, and must not call VerifiedView. It does not
// allocate after the first call.
func (s *Session[I]) VerifiedView(fn func(w *world.World, tick uint32)) bool {
	v := &s.verified
	v.draw.Lock()
	defer v.draw.Unlock()
	if !v.on.Load() {
		s.mu.Lock()
		if !v.on.Load() {
			s.publishVerified()
			v.on.Store(true)
		}
		s.mu.Unlock()
	}
	v.mu.Lock()
	if v.fresh {
		v.front, v.ready = v.ready, v.front
		v.fresh = false
	}
	any := v.any
	v.mu.Unlock()
	if !any {
		return false
	}
	fn(v.worlds[v.front], v.ticks[v.front])
	return true
}
