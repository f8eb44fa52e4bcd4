package gateway_test

import (
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestInputSchedule sends inputs right after receiving a tick N and checks
// that each appears, with its sequence, in tick T+inputDelayTicks, T the
// newest tick its player had sent when it took the input: T is N when the
// input comes before the player's next tick, later only when the next
// tick was already sent (in flight) by then. An input whose tick the
// host ran without it (a late input: it then lands later) is the one
// other case; it is counted by the host. With inputDelayTicks 1 an input
// lands two ticks after T (docs/gateway.md, "When an input applies").
func TestInputSchedule(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	for _, delay := range []int{1, 2, 3} {
		m := newMatch(t, 4, gateway.Config[walkers.Input]{InputDelay: delay})
		var mu sync.Mutex
		taken := map[uint64]uint32{}
		gateway.SetOnTake(m.gw, func(seq uint64, tick uint32) {
			mu.Lock()
			taken[seq] = tick
			mu.Unlock()
		})
		ctx := timeout(t, 30*time.Second)
		c := newJSONClient(t, dial(ctx, t, m.url))
		if _, err := c.next(ctx, "initial_state"); err != nil {
			t.Fatal(err)
		}
		if c.init.InputDelayTicks != delay {
			t.Fatalf("inputDelayTicks %d, want %d", c.init.InputDelayTicks, delay)
		}
		exact, inFlight, hostLate := 0, 0, 0
		for i := range 20 {
			c.playTo(ctx, c.tick+1)
			n := c.tick
			late := m.host.Stats().Total.LateInputs
			if err := c.goTo(ctx, float64(i%10), -float64(i%7)); err != nil {
				t.Fatal(err)
			}
			seq := c.seq
			want := uint32(max(delay, 2)) // ticks after T
			var at uint32
			for at == 0 {
				mm, err := c.next(ctx, "tick")
				if err != nil {
					t.Fatal(err)
				}
				var tk tickMsg
				_ = jsonUnmarshal(mm.Payload, &tk)
				for _, cm := range tk.Commands {
					if cm.PlayerID == c.init.PlayerID && cm.Sequence == seq {
						at = tk.TickID
					}
				}
				// A late input lands at the first tick whose input reaches
				// the host in time; a loaded machine (-race, two cores)
				// can keep the gateway's sends late for a second (60
				// ticks, the bound here before: CI failed on it).
				if c.tick > n+want+600 {
					t.Fatalf("delay %d: input %d sent after tick %d not in any tick up to %d", delay, seq, n, c.tick)
				}
			}
			mu.Lock()
			tt, ok := taken[seq]
			mu.Unlock()
			switch {
			case !ok || tt < n:
				t.Fatalf("delay %d: input %d sent after tick %d taken at tick %d (%v)", delay, seq, n, tt, ok)
			case at == tt+want && tt == n:
				exact++
			case at == tt+want:
				inFlight++
			case at > tt+want && m.host.Stats().Total.LateInputs > late:
				hostLate++
			default:
				t.Fatalf("delay %d: input %d sent after tick %d, taken at tick %d, in tick %d: want tick %d",
					delay, seq, n, tt, at, tt+want)
			}
		}
		t.Logf("delay %d: 20 inputs: %d at N+max(delay, 2), %d taken after tick N+1 was sent, %d late at the host", delay, exact, inFlight, hostLate)
		for tick, h := range c.hashes {
			if hh := m.hashes.Hash(tick); hh != h {
				t.Fatalf("tick %d: client %016x, host %016x", tick, h, hh)
			}
		}
		m.stop()
	}
}
