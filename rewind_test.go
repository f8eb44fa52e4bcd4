package rewind_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// TestPlayMatchesServer plays single-player in made-up time and checks the
// client's verified worlds against the local server's, tick by tick.
func TestPlayMatchesServer(t *testing.T) {
	hashes := map[uint32]uint64{}
	checked := 0
	var opts rewind.Options
	opts.Server.OnTick = func(tick uint32, w *world.World, h uint64) { hashes[tick] = h }
	opts.Client.OnVerified = func(tick uint32, h uint64) {
		checked++
		if hashes[tick] != h {
			t.Errorf("tick %d: client hash %016x, server %016x", tick, h, hashes[tick])
		}
	}
	s, err := rewind.Play[testgame.Input](&testgame.Game{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(0, tick) })
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 3000 {
		now = now.Add(time.Millisecond)
		if err := s.Update(now); err != nil {
			t.Fatal(err)
		}
	}
	st := s.Stats()
	if st.Verified < 170 || checked != int(st.Verified) || st.Desyncs != 0 {
		t.Fatalf("after 3 s: %+v, %d ticks checked", st, checked)
	}
	for i := range 20 { // alpha runs from 0 to 1 between ticks
		at := now.Add(time.Duration(i) * time.Millisecond)
		s.View(at, func(w *world.World, alpha float64) {
			if alpha < 0 || alpha > 1 || w == nil {
				t.Errorf("alpha %v at %v", alpha, at)
			}
		})
	}
	// On a loopback the player's own guesses are never wrong: no rollback.
	if st.Rollbacks != 0 || st.LateInputs > 1 { // the join tick runs before any input
		t.Errorf("single-player: %d rollbacks, %d late inputs", st.Rollbacks, st.LateInputs)
	}
}

// TestRunRealTime drives a single-player session with Run's real-time loop
// inside a synctest bubble (fake clock): it ticks at the game's rate, stops
// when the context ends, and leaves no goroutine behind.
func TestRunRealTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := rewind.Play[testgame.Input](&testgame.Game{}, rewind.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.SetInput(testgame.Input{DX: 1})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
		st := s.Stats()
		if st.Verified < 110 || st.Verified > 121 || st.Desyncs != 0 {
			t.Errorf("after 2 s of Run: %+v", st)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDriveStopsOnError: Drive returns the Updater's error at once.
func TestDriveStopsOnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		u := updaterFunc(func(time.Time) error {
			n++
			if n == 5 {
				return context.Canceled
			}
			return nil
		})
		err := rewind.Drive(context.Background(), u, time.Millisecond, nil)
		if err != context.Canceled || n != 5 {
			t.Fatalf("Drive: %v after %d updates", err, n)
		}
	})
}

type updaterFunc func(time.Time) error

func (f updaterFunc) Update(now time.Time) error { return f(now) }

// TestConnectRefused: a client of another game is refused, and says why.
func TestConnectRefused(t *testing.T) {
	testutil.SkipSockets(t)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, start)
	sconn, _ := net.Listen("server")
	defer sconn.Close()
	srv, err := server.New[testgame.Input](&testgame.Game{}, sconn, server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	conn, _ := net.Dial("c", "server")
	defer conn.Close()
	s, err := rewind.Connect[testgame.Input](&testgame.Game{Bytes: 64}, conn, rewind.Options{}) // another world layout
	if err != nil {
		t.Fatal(err)
	}
	now := start
	for range 100 {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		_ = srv.Update(now)
		if err = s.Update(now); err != nil {
			break
		}
	}
	if !errors.Is(err, rewind.ErrRefused) {
		t.Fatalf("Update: %v, want a refusal", err)
	}
	t.Log(err)
}
