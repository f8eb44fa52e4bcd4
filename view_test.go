package rewind_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// TestViewBetweenSinglePlayer drives a single-player session in made-up
// time and checks every frame: cur is the world the client predicted at
// the session's predicted tick, prev the world it had one tick earlier,
// and alpha stays in [0, 1] and does not go back between two Updates.
func TestViewBetweenSinglePlayer(t *testing.T) {
	s, err := rewind.Play[testgame.Input](&testgame.Game{Bytes: 4096}, rewind.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(0, tick) })
	live := map[uint32]uint64{} // the predicted world's hash, by tick
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	frames, moving := 0, 0
	for i := range 2000 {
		now = now.Add(time.Millisecond)
		if err := s.Update(now); err != nil {
			t.Fatal(err)
		}
		tick := s.Stats().Predicted
		live[tick] = rewind.LiveWorld(s).Hash() // made-up time, one goroutine: the live world is safe here
		if i%16 != 0 {
			continue
		}
		last := -1.0
		for _, d := range []time.Duration{0, 5 * time.Millisecond, 11 * time.Millisecond, time.Second} {
			s.ViewBetween(now.Add(d), func(prev, cur *world.World, alpha float64) {
				frames++
				if h := cur.Hash(); h != live[tick] {
					t.Fatalf("tick %d: cur hash %016x, the client's %016x", tick, h, live[tick])
				}
				if tick > 1 {
					if h, ok := live[tick-1]; !ok || prev.Hash() != h {
						t.Fatalf("tick %d: prev hash %016x, the client's at %d %016x", tick, prev.Hash(), tick-1, h)
					}
					if !prev.Equal(cur) {
						moving++
					}
				}
				if alpha < 0 || alpha > 1 || alpha < last {
					t.Fatalf("tick %d, %v after Update: alpha %v (before: %v)", tick, d, alpha, last)
				}
				last = alpha
			})
		}
		if last != 1 {
			t.Fatalf("a second after the Update: alpha %v, want 1", last)
		}
		var w2 *world.World
		s.View(now, func(w *world.World, alpha float64) { w2 = w })
		s.ViewBetween(now, func(_, cur *world.World, _ float64) {
			if cur != w2 {
				t.Fatal("View and ViewBetween draw different worlds")
			}
		})
	}
	if frames < 400 || moving < frames/2 {
		t.Fatalf("%d frames, %d with prev != cur", frames, moving)
	}
}

// TestViewBetweenOnline plays two clients and a server over a lossy,
// jittery simulated network in made-up time: with rollbacks, cur is the
// client's predicted world as corrected, and prev the world of the tick
// before it, which equals the server's wherever that tick is verified
// (client b predicts at most a tick ahead, so that it often is).
func TestViewBetweenOnline(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(7, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05})
	sconn, _ := net.Listen("server")
	defer sconn.Close()
	var mu sync.Mutex
	hashes := map[uint32]uint64{}
	srv, err := server.New[testgame.Input](&testgame.Game{}, sconn, server.Config{
		StartPlayers: 2,
		OnTick: func(tick uint32, w *world.World, h uint64) {
			mu.Lock()
			hashes[tick] = w.Hash()
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ss []*rewind.Session[testgame.Input]
	for i, name := range []string{"a", "b"} {
		conn, _ := net.Dial(name, "server")
		defer conn.Close()
		var opts rewind.Options
		if name == "b" {
			opts.Client.MaxPrediction = time.Second / 60
		}
		s, err := rewind.Connect[testgame.Input](&testgame.Game{}, conn, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		rng := rand.New(rand.NewPCG(uint64(i), 1))
		in := testgame.Input{}
		s.SetInputFunc(func(tick uint32) testgame.Input {
			if rng.IntN(8) == 0 {
				in = testgame.Input{DX: int8(rng.IntN(7) - 3), DY: int8(rng.IntN(7) - 3), Fire: rng.IntN(2) == 0}
			}
			return in
		})
		ss = append(ss, s)
	}
	now := start
	checked := 0
	for i := range 6000 {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		if err := srv.Update(now); err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			if err := s.Update(now); err != nil {
				t.Fatal(err)
			}
			if i%7 != 0 {
				continue
			}
			st := s.Stats()
			want := rewind.LiveWorld(s).Hash()
			s.ViewBetween(now, func(prev, cur *world.World, alpha float64) {
				if cur.Hash() != want {
					t.Fatalf("tick %d: cur is not the predicted world", st.Predicted)
				}
				if p := st.Predicted - 1; st.Predicted > 1 && p <= st.Verified {
					mu.Lock()
					h := hashes[p]
					mu.Unlock()
					if prev.Hash() != h {
						t.Fatalf("prev of tick %d (verified %d): %016x, server %016x", st.Predicted, st.Verified, prev.Hash(), h)
					}
					checked++
				}
			})
		}
	}
	for i, s := range ss {
		if st := s.Stats(); st.Rollbacks == 0 || st.Desyncs != 0 || st.Verified < 300 {
			t.Errorf("client %d: %d rollbacks, %d desyncs, verified %d", i, st.Rollbacks, st.Desyncs, st.Verified)
		}
	}
	if checked < 50 {
		t.Errorf("prev checked against the server %d times", checked)
	}
}

// TestViewWhileRun: a view goroutine draws (reading every byte of both
// worlds) while Run drives the session, and other goroutines read its
// state, in a synctest bubble (made-up time). Run with -race: nothing the
// view reads is written by Run's goroutine meanwhile.
func TestViewWhileRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errStop := errors.New("stop")
		var s *rewind.Session[testgame.Input]
		s, err := rewind.Play[testgame.Input](&testgame.Game{Bytes: 1 << 12}, rewind.Options{
			OnUpdate: func(now time.Time, st rewind.Stats) error {
				if s.State() == rewind.Playing && st.Verified >= 120 {
					return errStop
				}
				return nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		s.SetInputFunc(func(tick uint32) testgame.Input {
			me, ok := s.Player() // lock-free: safe inside Update
			if !ok {
				t.Error("input asked for before the welcome")
			}
			return testgame.Bot(me, tick)
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		run := make(chan error, 1)
		go func() { run <- s.Run(ctx) }()
		vctx, vcancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		frames, moving := 0, 0
		wg.Go(func() { // the view: 60 frames a second
			for vctx.Err() == nil {
				s.ViewBetween(time.Now(), func(prev, cur *world.World, alpha float64) {
					frames++
					if prev.Hash() != cur.Hash() {
						moving++
					}
					if alpha < 0 || alpha > 1 {
						t.Errorf("alpha %v", alpha)
					}
				})
				time.Sleep(time.Second / 60)
			}
		})
		wg.Go(func() { // a status reader
			var fx []rewind.EffectEvent
			for vctx.Err() == nil {
				_ = s.Stats()
				_ = s.State()
				_, _ = s.Player()
				_, _ = s.ServerStats()
				fx = s.Effects(fx[:0])
				time.Sleep(7 * time.Millisecond)
			}
		})
		err = <-run
		vcancel()
		wg.Wait()
		if !errors.Is(err, errStop) {
			t.Fatalf("Run: %v, want the OnUpdate hook's error", err)
		}
		if st := s.Stats(); st.Verified != 120 || st.Desyncs != 0 {
			t.Errorf("stopped at %+v", st)
		}
		if frames < 100 || moving < frames/2 {
			t.Errorf("%d frames, %d of them moving", frames, moving)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s.State() != rewind.Ended {
			t.Errorf("state after Close: %v", s.State())
		}
	})
}

// TestViewDoesNotBlockRun: a view that takes a whole second over one
// frame does not hold Run up: the session ticks on meanwhile (synctest's
// made-up time), and the next frame shows the newer tick.
func TestViewDoesNotBlockRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := rewind.Play[testgame.Input](&testgame.Game{}, rewind.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.SetInput(testgame.Input{DX: 1})
		ctx, cancel := context.WithCancel(context.Background())
		run := make(chan error, 1)
		go func() { run <- s.Run(ctx) }()
		time.Sleep(500 * time.Millisecond)
		var during, after uint32
		s.View(time.Now(), func(w *world.World, alpha float64) {
			during = s.Stats().Predicted
			time.Sleep(time.Second) // a very slow frame
			if d := s.Stats().Predicted - during; d < 50 {
				t.Errorf("%d ticks in the second the view drew", d)
			}
		})
		after = s.Stats().Predicted
		cancel()
		if err := <-run; err != nil {
			t.Fatal(err)
		}
		if after < during+50 {
			t.Errorf("predicted tick %d before the slow frame, %d after", during, after)
		}
	})
}
