package gateway_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/transport"
)

// goClient drives a Go client of walkers in real time over conn until ctx
// ends, recording the hash of every tick it verified.
func goClient(ctx context.Context, t testing.TB, conn transport.Conn, lockstep bool, hashes map[uint32]uint64, mu *sync.Mutex) func() error {
	return goClientStats(ctx, t, conn, lockstep, hashes, mu, nil)
}

// goClientStats is goClient that also copies the client's stats into st
// (under mu) after every update.
func goClientStats(ctx context.Context, t testing.TB, conn transport.Conn, lockstep bool, hashes map[uint32]uint64, mu *sync.Mutex, st *client.Stats) func() error {
	c, err := client.New[walkers.Input](walkers.New(), conn, client.Config{Lockstep: lockstep,
		OnVerified: func(tick uint32, h uint64) { mu.Lock(); hashes[tick] = h; mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	c.SetInputFunc(func(tick uint32) walkers.Input {
		id, _ := c.Player()
		return walkers.Bot(id, tick)
	})
	done := make(chan error, 1)
	go func() {
		for {
			if err := c.Update(time.Now()); err != nil {
				done <- err
				return
			}
			if st != nil {
				mu.Lock()
				*st = c.Stats()
				mu.Unlock()
			}
			select {
			case <-ctx.Done():
				_ = c.Close()
				done <- nil
				return
			case <-conn.Ready():
			case <-time.After(4 * time.Millisecond):
			}
		}
	}()
	return func() error { return <-done }
}

// TestMixedMatch plays one match with a rollback Go client, a lockstep Go
// client and two JSON clients: every tick any of them verified hashes as
// the host's.
func TestMixedMatch(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	lb := transport.NewLoopback()
	srvConn, err := lb.Listen("server")
	if err != nil {
		t.Fatal(err)
	}
	m := newMatch(t, 8, gateway.Config[walkers.Input]{}, srvConn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	goHashes := []map[uint32]uint64{{}, {}}
	var waits []func() error
	for i, lockstep := range []bool{false, true} {
		conn, err := lb.Dial([]string{"rollback", "lockstep"}[i], "server")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		waits = append(waits, goClient(ctx, t, conn, lockstep, goHashes[i], &mu))
	}
	js := []*jsonClient{newJSONClient(t, dial(ctx, t, m.url)), newJSONClient(t, dial(ctx, t, m.url))}
	errs := make(chan error, len(js))
	for i, c := range js {
		go func() {
			if _, err := c.next(ctx, "initial_state"); err != nil {
				errs <- err
				return
			}
			for c.checked < 600 {
				if c.checked%45 == 0 {
					if err := c.goTo(ctx, float64(i*4-2), float64(c.checked%7)); err != nil {
						errs <- err
						return
					}
				}
				if _, err := c.next(ctx, "tick"); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range js {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	for _, w := range waits {
		if err := w(); err != nil {
			t.Fatalf("go client: %v", err)
		}
	}
	check := func(who string, hs map[uint32]uint64, min int) {
		if len(hs) < min {
			t.Errorf("%s verified %d ticks, want at least %d", who, len(hs), min)
		}
		for tick, h := range hs {
			if hh := m.hashes.Hash(tick); hh != h {
				t.Errorf("%s: tick %d hashes %016x, the host's %016x", who, tick, h, hh)
			}
		}
	}
	mu.Lock()
	check("rollback client", goHashes[0], 500)
	check("lockstep client", goHashes[1], 500)
	mu.Unlock()
	for i, c := range js {
		check([]string{"json client 1", "json client 2"}[i], c.hashes, 600)
	}
	// All four played in one match: the JSON clients saw four walkers.
	if n := len(js[0].g.Walkers(js[0].w)); n != 4 {
		t.Fatalf("%d walkers in the match, want 4", n)
	}
}
