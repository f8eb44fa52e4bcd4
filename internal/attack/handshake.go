package attack

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/transport/udp"
)

// floodAddrs is how many loopback addresses HandshakeFlood finishes
// handshakes from (127.0.5.1 to 127.0.5.250).
const floodAddrs = 250

// HandshakeFlood: issue 30's item 4. 250 addresses finish UDP handshakes
// with the server as fast as it answers, never saying a word in their
// sessions, while a pair plays; 6 new players then join one after the
// other. Before, the handshakes ran on the server's one reader goroutine
// and filled the unproven table: 2 of 6 new players got in over 40 s.
// It holds if 5 of 6 join (each within 20 s, dialing again if a dial
// gives up: a verified tick). The pair's
// late inputs per 1,000 player-ticks, quiet and flooded, are figures:
// on a shared machine their noise is larger than any rise.
func HandshakeFlood(ctx context.Context, cfg Config) Result {
	r := Result{Name: "handshake_flood"}
	t, err := startUDPTarget(ctx, rewind.HostOptions{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	quiet := pick(cfg, time.Second, 5*time.Second)
	lateQuiet := t.lateWhile(ctx, func() { sleepCtx(ctx, quiet) })
	opened0 := t.udp.Stats().Opened
	fctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var dials atomic.Int64
	for a := range floodAddrs {
		wg.Go(func() {
			ucfg := udp.Config{LocalAddr: fmt.Sprintf("127.0.5.%d:0", a+1), HandshakeTimeout: time.Second}
			for fctx.Err() == nil {
				c, err := udp.DialContext(fctx, t.addr, ucfg)
				dials.Add(1)
				if err == nil {
					c.Close()
				}
			}
		})
	}
	joined := 0
	var worst time.Duration
	start := time.Now()
	lateFlood := t.lateWhile(ctx, func() {
		sleepCtx(ctx, quiet/2) // the flood under way
		for range 6 {
			// A player whose dial gives up (5 s) dials again, as
			// `rewind play` run again would, for up to 20 s.
			for begun := time.Now(); time.Since(begun) < 20*time.Second && ctx.Err() == nil; {
				if _, err := t.joinTimed(ctx, 20*time.Second-time.Since(begun)); err == nil {
					joined++
					worst = max(worst, time.Since(begun))
					break
				}
			}
		}
	})
	secs := time.Since(start).Seconds()
	stop()
	wg.Wait()
	st := t.udp.Stats()
	r.add("addresses", floodAddrs)
	r.add("seconds", secs)
	r.add("attacker_handshakes", st.Opened-opened0-uint64(joined))
	r.add("handshakes_per_s", float64(st.Opened-opened0)/secs)
	r.add("handshakes_dropped", st.HandshakesDropped)
	r.add("new_players_joined", fmt.Sprintf("%d/6", joined))
	r.add("worst_join_ms", worst.Milliseconds())
	r.add("pair_late_per_1000_quiet", lateQuiet)
	r.add("pair_late_per_1000_flood", lateFlood)
	r.Held = joined >= 5
	return r
}

// lateWhile runs f and returns the match's late inputs per 1,000
// player-ticks meanwhile.
func (t *udpTarget) lateWhile(ctx context.Context, f func()) float64 {
	s0 := t.host.Stats().Total
	f()
	s1 := t.host.Stats().Total
	if s1.PlayerTicks == s0.PlayerTicks {
		return 0
	}
	return 1000 * float64(s1.LateInputs-s0.LateInputs) / float64(s1.PlayerTicks-s0.PlayerTicks)
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
