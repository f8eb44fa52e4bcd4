package rewind_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// TestSessionStates follows a player who joins a running match over a
// slow simulated link in made-up time: Connecting until the welcome,
// Loading while the world comes, Playing, Ended after Close; and a refused
// player's session Ended with ErrRefused. OnUpdate sees every Update.
func TestSessionStates(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(3, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 40 * time.Millisecond})
	sconn, _ := net.Listen("server")
	defer sconn.Close()
	srv, err := server.New[testgame.Input](&testgame.Game{Bytes: 64 << 10}, sconn, server.Config{MaxPlayers: 2})
	if err != nil {
		t.Fatal(err)
	}
	join := func(name string, g *testgame.Game) (*rewind.Session[testgame.Input], *int) {
		conn, _ := net.Dial(name, "server")
		t.Cleanup(func() { conn.Close() })
		updates := new(int)
		s, err := rewind.Connect[testgame.Input](g, conn, rewind.Options{
			OnUpdate: func(time.Time, rewind.Stats) error { *updates++; return nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		if local, remote := s.Addrs(); local != string(conn.LocalAddr()) || remote != string(conn.RemoteAddr()) {
			t.Errorf("addresses %q → %q", local, remote)
		}
		return s, updates
	}
	now := start
	step := func(ss ...*rewind.Session[testgame.Input]) error {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		if err := srv.Update(now); err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			if err := s.Update(now); err != nil {
				return err
			}
		}
		return nil
	}
	first, _ := join("first", &testgame.Game{Bytes: 64 << 10})
	for range 2000 { // the match runs for a while before the second player
		if err := step(first); err != nil {
			t.Fatal(err)
		}
	}
	// The world reaches the late player over a slow link: it loads for a
	// while.
	net.SetLink("server", "late", transport.LinkConfig{Latency: 40 * time.Millisecond, BytesPerSecond: 100_000})
	late, updates := join("late", &testgame.Game{Bytes: 64 << 10})
	if st := late.State(); st != rewind.Connecting {
		t.Fatalf("before any Update: %v", st)
	}
	seen := map[rewind.State]int{}
	var order []rewind.State
	n := 0
	for late.State() != rewind.Playing && n < 3000 {
		if err := step(first, late); err != nil {
			t.Fatal(err)
		}
		n++
		st := late.State()
		if seen[st] == 0 {
			order = append(order, st)
		}
		seen[st]++
		if _, ok := late.Player(); ok != (st != rewind.Connecting) {
			t.Fatalf("state %v, welcomed %v", st, ok)
		}
	}
	if len(order) != 3 || order[0] != rewind.Connecting || order[1] != rewind.Loading || order[2] != rewind.Playing {
		t.Fatalf("states in order %v (updates in each: %v)", order, seen)
	}
	if *updates != n {
		t.Errorf("OnUpdate called %d times in %d Updates", *updates, n)
	}
	late.Close()
	if st := late.State(); st != rewind.Ended {
		t.Errorf("after Close: %v", st)
	}

	// A player of another game is refused: Ended.
	other, _ := join("other", &testgame.Game{Bytes: 64})
	for err = nil; err == nil && now.Before(start.Add(time.Hour)); {
		err = step(other)
	}
	var r *rewind.RefusedError
	if !errors.Is(err, rewind.ErrRefused) || !errors.As(err, &r) || r.Reason != rewind.ReasonGame {
		t.Fatalf("another game's Update: %v", err)
	}
	if st := other.State(); st != rewind.Ended {
		t.Errorf("refused: %v", st)
	}
}
