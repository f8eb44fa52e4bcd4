package gateway_test

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestPlay plays one JSON client: initial_state, destination inputs
// scheduled with their sequence, every tick's hash equal to the client's
// own simulation and to the host's.
func TestPlay(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	m := newMatch(t, 4, gateway.Config[walkers.Input]{})
	ctx := timeout(t, 20*time.Second)
	c := newJSONClient(t, dial(ctx, t, m.url))
	if _, err := c.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	in := c.init
	if in.PlayerID != 0 || in.InputDelayTicks != 2 || in.TickRate != 60 || in.TickDurationMs != 16.667 ||
		len(in.Compatibility) != 16 || in.LayoutHash != "94dd89abafeb432d" || len(in.ResumeToken) != 32 ||
		len(in.Players) != 1 || in.Players[0] != 0 || len(in.State) == 0 {
		t.Fatalf("initial_state %+v", in)
	}
	if err := c.goTo(ctx, 3.214, -0.005); err != nil {
		t.Fatal(err)
	}
	var got bool
	for !got {
		m, err := c.next(ctx, "tick")
		if err != nil {
			t.Fatal(err)
		}
		var tk tickMsg
		_ = jsonUnmarshal(m.Payload, &tk)
		for _, cm := range tk.Commands {
			want := walkers.Input{X: 321, Y: -1, Move: true} // whole centimetres, rounded
			if cm.PlayerID != 0 || cm.Sequence != 1 || cm.Input != want {
				t.Fatalf("command %+v, want player 0 sequence 1 input %+v", cm, want)
			}
			got = true
			if d := tk.TickID - in.SnapshotTick; d < 2 {
				t.Fatalf("input scheduled at tick %d, %d after the snapshot tick: want at least the input delay", tk.TickID, d)
			}
		}
	}
	for c.checked < 120 {
		if _, err := c.next(ctx, "tick"); err != nil {
			t.Fatal(err)
		}
	}
	ws := c.g.Walkers(c.w)
	if len(ws) != 1 || ws[0].TX != 321 || ws[0].TY != -1 {
		t.Fatalf("walkers %+v", ws)
	}
	for tick, h := range c.hashes {
		if hh := m.hashes.Hash(tick); hh != h {
			t.Fatalf("tick %d: client %016x, host %016x", tick, h, hh)
		}
	}
	if len(c.errors) != 0 {
		t.Fatalf("errors %+v", c.errors)
	}
}
