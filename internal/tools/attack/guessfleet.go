package attack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// guessAddrs is how many loopback addresses CodeGuessingFleet guesses
// from (127.0.3.1 to 127.0.3.250).
const guessAddrs = 250

// CodeGuessingFleet: issue 30's item 10. 250 addresses guess room codes
// of the default length as fast as the relay answers (each within its
// own failed-join burst of 20, which from one address is what
// code_guessing meets), reconnecting when cut off, while a player from
// another address joins a live room by its code (the guessing goes on
// until the player has its answer, up to 30 s, however long the attack's
// own seconds). The relay's budget of failed joins for all addresses
// (FailBudgetBurst 600, FailBudgetRate 0.2 a second) binds them: it
// holds if at most the budget, plus one guess per address (its first,
// answered even with the budget spent) and one in flight per address,
// were answered, and the player joined.
func CodeGuessingFleet(ctx context.Context, cfg Config) Result {
	r := Result{Name: "code_guessing_fleet"}
	rc := relay.RoomConfig{}.WithDefaults()
	t, err := startRelay(netutil.HTTPLimits{}, rc)
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: t.url})
	if err != nil {
		r.Err = err
		return r
	}
	defer host.Close()
	dur := pick(cfg, 2*time.Second, 10*time.Second)
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var g guessing
	var wg sync.WaitGroup
	start := time.Now()
	g.run(actx, &wg, t.url)
	jctx, jcancel := context.WithTimeout(ctx, 30*time.Second)
	defer jcancel()
	answer := make(chan bool, 1)
	go func() { answer <- playerJoins(jctx, t.url, host.Code()) }()
	sleepCtx(ctx, dur)
	joined := <-answer
	cancel()
	wg.Wait()
	secs := time.Since(start).Seconds()
	bound := float64(rc.FailBudgetBurst) + 2*guessAddrs + rc.FailBudgetRate*secs + 1
	r.add("addresses", guessAddrs)
	r.add("seconds", secs)
	r.add("dials", g.dials.Load())
	r.add("guesses_answered", g.answered.Load())
	r.add("refused", g.refused.Load())
	r.add("answered_bound", int(bound))
	r.add("player_joined", joined)
	// The sustained rate the budget leaves (0.2 a second, plus one guess
	// per address a day) and what it finds of 10,000 live rooms of the
	// default length a day (docs/security.md).
	perDay := rc.FailBudgetRate*86400 + guessAddrs*86400/rc.FailMemory.Seconds()
	r.add("code_length", roomcode.DefaultLen)
	r.add("rooms_found_a_day_of_10000", perDay*1e4/codeSpace())
	r.Held = float64(g.answered.Load()) <= bound && joined
	return r
}

// playerJoins joins the room code at url from 127.0.4.1, a new address,
// after a moment of the attack: true once the relay answered "joined".
func playerJoins(ctx context.Context, url, code string) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(300 * time.Millisecond):
	}
	c, err := dialFrom(ctx, url, net.IPv4(127, 0, 4, 1))
	if err != nil {
		return false
	}
	defer c.CloseNow()
	m, err := wsAsk(ctx, c, fmt.Sprintf(`{"type":"join","v":1,"code":%q}`, code))
	return err == nil && m.Type == roomproto.MsgJoined
}

// guessing is CodeGuessingFleet's attacker: guessAddrs addresses
// (127.0.3.x) guessing codes of the default length by joins, as fast as
// the relay answers, reconnecting when cut off; it counts the guesses
// answered no_room, the refusals and the dials.
type guessing struct {
	answered, refused, dials atomic.Int64
}

// run starts the guessing at url until ctx ends (wg waits for it).
func (g *guessing) run(ctx context.Context, wg *sync.WaitGroup, url string) {
	for a := range guessAddrs {
		wg.Go(func() {
			ip := net.IPv4(127, 0, 3, byte(a+1))
			rng := rand.New(rand.NewPCG(uint64(a), 30))
			for ctx.Err() == nil {
				c, err := dialFrom(ctx, url, ip)
				g.dials.Add(1)
				if err != nil {
					continue
				}
				for ctx.Err() == nil {
					m, err := wsAsk(ctx, c, `{"type":"join","v":1,"code":"`+randomCode(rng)+`"}`)
					if err != nil {
						break
					}
					if m.Error == roomproto.ErrCodeNoRoom {
						g.answered.Add(1)
						continue
					}
					g.refused.Add(1)
					break
				}
				c.CloseNow()
			}
		})
	}
}
