package gateway_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
)

// TestDesyncStorm: a socket that sends desync as fast as the rate limit
// lets it (29 a second, issue 30 item 6) gets an initial_state for the
// first, then at most one per gap, the gap doubling (CheckpointEvery 500
// ms here: at 0, 0.5, 1.5 and 3.5 s), and the gateway sends it less than
// 20 times the bytes it receives from it, the ticks included. The whole
// match, gateway and WebSocket (over net.Pipe) run in a synctest bubble:
// the 3 s storm takes no real time and its answers fall exactly at 0,
// 0.5 and 1.5 s whatever the machine's load (a real-time storm had ~200
// ms of margin under -race on a loaded machine).
func TestDesyncStorm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, dial := newPipeMatch(t, rewind.ServerConfig{MaxPlayers: 2, StartPlayers: 1},
			gateway.Config[walkers.Input]{CheckpointEvery: 500 * time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c := newJSONClient(t, dial(ctx))
		if _, err := c.next(ctx, "initial_state"); err != nil {
			t.Fatal(err)
		}
		before := m.gw.Stats()
		start := time.Now()
		reads := make(chan []time.Duration, 1)
		go func() { // when each initial_state comes while the storm lasts
			var at []time.Duration
			defer func() { reads <- at }()
			for {
				mm, err := c.read(ctx)
				if err != nil {
					return
				}
				if mm.Type == "initial_state" {
					at = append(at, time.Since(start))
				}
			}
		}()
		const storm = 3 * time.Second
		tk := time.NewTicker(time.Second / 29)
		defer tk.Stop()
		for end := start.Add(storm); time.Now().Before(end); <-tk.C {
			if err := c.send(ctx, "desync", map[string]any{"tickId": 1, "stateHash": "0123456789abcdef"}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(300 * time.Millisecond) // the last answers in flight (made-up time)
		after := m.gw.Stats()
		_ = c.ws.CloseNow()
		at := <-reads
		in, out := after.BytesIn-before.BytesIn, after.BytesOut-before.BytesOut
		t.Logf("storm of %v: initial_states at %v, %d checkpoints; %d bytes in, %d out (%.1fx)",
			storm, at, after.Checkpoints-before.Checkpoints, in, out, float64(out)/float64(in))
		want := []time.Duration{0, 500 * time.Millisecond, 1500 * time.Millisecond}
		if len(at) != len(want) {
			t.Fatalf("initial_states at %v in a %v storm, want 3 (at 0, 0.5 and 1.5 s; 3.5 s is past it)", at, storm)
		}
		for i, w := range want {
			if d := at[i] - w; d < 0 || d > time.Second/29 {
				t.Errorf("initial_state %d at %v, want %v (within a desync's period, %v)", i, at[i], w, time.Second/29)
			}
		}
		if out >= 20*in {
			t.Errorf("sent %d bytes for %d received: %.1fx, want under 20x", out, in, float64(out)/float64(in))
		}
	})
}
