package rewind

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/world"
)

// TestVerifiedView plays a single-player session in made-up time and
// reads the verified world at every Update: it must be the server's world
// of the tick it names (hash for hash), never ahead of the predicted one,
// and copied only when the verified tick changed — frames in which nothing
// was verified copy nothing.
func TestVerifiedView(t *testing.T) {
	server := map[uint32]uint64{}
	opts := Options{}
	opts.Server.OnTick = func(tick uint32, _ *world.World, hash uint64) { server[tick] = hash }
	s, err := Play[testgame.Input](&testgame.Game{Bytes: 4096}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(0, tick) })
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if s.VerifiedView(func(*world.World, uint32) { t.Fatal("called before anything was verified") }) {
		t.Fatal("VerifiedView before the match reported a world")
	}
	last, distinct, seen := uint32(0), 0, 0
	for range 3000 {
		now = now.Add(time.Millisecond)
		if err := s.Update(now); err != nil {
			t.Fatal(err)
		}
		st := s.Stats()
		before := s.verified.copies.Load()
		for range 3 { // several frames per Update: one copy at most
			s.VerifiedView(func(w *world.World, tick uint32) {
				seen++
				if tick > st.Predicted || tick != st.Verified {
					t.Fatalf("verified view of tick %d; client verified %d, predicted %d", tick, st.Verified, st.Predicted)
				}
				if h, ok := server[tick]; tick > 0 && (!ok || h != w.Hash()) {
					t.Fatalf("tick %d: verified world hash %016x, the server's %016x", tick, w.Hash(), h)
				}
				if tick < last {
					t.Fatalf("verified tick went back from %d to %d", last, tick)
				}
				if tick != last {
					distinct++
					last = tick
				}
			})
		}
		if c := s.verified.copies.Load() - before; c > 1 {
			t.Fatalf("%d copies in one Update", c)
		}
	}
	copies := s.verified.copies.Load()
	if distinct < 100 || copies > uint64(distinct)+1 {
		t.Fatalf("%d verified ticks seen over %d frames, %d copies (want one per verified tick)", distinct, seen, copies)
	}
	// No Update: reading again copies nothing.
	for range 10 {
		s.VerifiedView(func(*world.World, uint32) {})
	}
	if c := s.verified.copies.Load(); c != copies {
		t.Fatalf("reads without an Update copied %d worlds", c-copies)
	}
}
