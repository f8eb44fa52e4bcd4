package gateway_test

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestDesyncStorm: a socket that sends desync as fast as the rate limit
// lets it (29 a second, issue 30 item 6) gets an initial_state for the
// first, then at most one per gap, the gap doubling (CheckpointEvery 500
// ms here: at 0, 0.5, 1.5 and 3.5 s), and the gateway sends it less than
// 20 times the bytes it receives from it, the ticks included.
func TestDesyncStorm(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	m := newMatch(t, 2, gateway.Config[walkers.Input]{CheckpointEvery: 500 * time.Millisecond})
	ctx := timeout(t, 30*time.Second)
	c := newJSONClient(t, dial(ctx, t, m.url))
	if _, err := c.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	before := m.gw.Stats()
	reads := make(chan int, 1)
	go func() { // count the initial_states while the storm lasts
		n := 0
		defer func() { reads <- n }()
		for {
			mm, err := c.read(ctx)
			if err != nil {
				return
			}
			if mm.Type == "initial_state" {
				n++
			}
		}
	}()
	const storm = 3 * time.Second
	tk := time.NewTicker(time.Second / 29)
	defer tk.Stop()
	for end := time.Now().Add(storm); time.Now().Before(end); <-tk.C {
		if err := c.send(ctx, "desync", map[string]any{"tickId": 1, "stateHash": "0123456789abcdef"}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond) // the last answers in flight
	after := m.gw.Stats()
	c.ws.CloseNow()
	initials := <-reads
	in, out := after.BytesIn-before.BytesIn, after.BytesOut-before.BytesOut
	t.Logf("storm of %v: %d initial_states, %d checkpoints; %d bytes in, %d out (%.1fx)",
		storm, initials, after.Checkpoints-before.Checkpoints, in, out, float64(out)/float64(in))
	if initials < 1 || initials > 3 {
		t.Errorf("%d initial_states in a %v storm, want 1 to 3 (at 0, 0.5 and 1.5 s; 3.5 s is past it)", initials, storm)
	}
	if out >= 20*in {
		t.Errorf("sent %d bytes for %d received: %.1fx, want under 20x", out, in, float64(out)/float64(in))
	}
}
