package seat

import (
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// TestWaitingLine: names in id order, "player ID" for a player without
// one, nothing for an empty set.
func TestWaitingLine(t *testing.T) {
	names := map[rewind.PlayerID]string{0: "ann", 5: "bob"}
	name := func(p rewind.PlayerID) string { return names[p] }
	for _, c := range []struct {
		set  uint64
		want string
	}{
		{0, ""},
		{1 << 5, "Waiting for: bob…"},
		{1<<0 | 1<<3 | 1<<5, "Waiting for: ann, player 3, bob…"},
		{1 << 63, "Waiting for: player 63…"},
	} {
		if got := WaitingLine(c.set, name); got != c.want {
			t.Errorf("WaitingLine(%b) = %q, want %q", c.set, got, c.want)
		}
	}
}

// TestPlayerWaitingFor: a seat in a match whose server stalls under
// acks:30 while another player ("bob") is cut off for 2 s shows "Waiting
// for: bob…" (the view's line) and waiting_for=ID in its status, and
// neither once bob is back; made-up time over the network simulator.
func TestPlayerWaitingFor(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(5, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 20 * time.Millisecond})
	sconn, _ := net.Listen("server")
	defer sconn.Close()
	srv, err := server.New[sand.Input](sand.New(32), sconn, server.Config{StartPlayers: 2, Stall: server.Stall{Kind: server.StallAcks, Acks: 30}})
	if err != nil {
		t.Fatal(err)
	}
	dial := func(name string) transport.Conn {
		c, err := net.Dial(name, "server")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	p, err := NewPlayer(Config{Side: 32}, func(g rewind.Game[sand.Input], opts rewind.Options) (*rewind.Session[sand.Input], error) {
		return rewind.Connect(g, dial("seat"), opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	bob, err := rewind.Connect[sand.Input](sand.New(32), dial("bob"), rewind.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close()
	_ = bob.SetName("bob")
	now := start
	run := func(d time.Duration, each func()) {
		for end := now.Add(d); now.Before(end); {
			now = now.Add(time.Millisecond)
			net.Advance(now)
			if err := srv.Update(now); err != nil {
				t.Fatal(err)
			}
			p.Tick(now)
			if err := bob.Update(now); err != nil {
				t.Fatalf("bob: %v", err)
			}
			if each != nil {
				each()
			}
		}
	}
	run(2*time.Second, nil)
	if line := p.WaitingFor(); line != "" || p.Err() != nil {
		t.Fatalf("before the blackout: %q, %v", line, p.Err())
	}
	bobID, _ := bob.Player()
	net.Blackout("bob", now, now.Add(2*time.Second))
	seen, status := "", ""
	run(2*time.Second, func() {
		if line := p.WaitingFor(); line != "" && seen == "" {
			seen, status = line, p.Status()
		}
	})
	if seen != "Waiting for: bob…" || kv(status)["waiting_for"] != strings.TrimSpace(server.WaitingIDs(1<<bobID)) {
		t.Errorf("during the blackout the seat showed %q, status %q; want bob (id %d)", seen, status, bobID)
	}
	run(2*time.Second, nil)
	if line := p.WaitingFor(); line != "" || kv(p.Status())["waiting_for"] != "" || p.Err() != nil {
		t.Errorf("after the blackout: %q, status %q, %v", line, p.Status(), p.Err())
	}
}
