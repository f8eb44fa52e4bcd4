package webrtc

import (
	"sync"
	"time"
)

// A peer's receive rate (issue 43 item 4). Each peer of a Host may send
// Config.RecvRate datagrams a second (burst RecvBurst: a quarter
// second's); beyond, its datagrams are dropped on arrival
// (Stats.RecvRateLimited), before they are queued or decoded. A peer that
// has had RecvRate/4 datagrams dropped so within one second is cut off (Stats.PeersCutOff): its
// PeerConnection is closed, so that pion's decryption and reading of the
// flood stop too. A player sends a datagram or two a tick (about 120 a
// second at 60 Hz), and while it loads a world an acknowledgement per
// update (up to one per chunk received: about 1,000 a second at 16
// chunks a tick): the default 2,000 a second leaves it below.

// DefaultRecvRate is Config.RecvRate's default.
const DefaultRecvRate = 2000

// recvGate is one peer's token bucket and its count of datagrams dropped
// in the current second.
type recvGate struct {
	mu       sync.Mutex
	tokens   float64
	last     time.Time
	windowAt time.Time
	drops    float64
	cut      bool
}

// allow reports whether a datagram arriving at now passes a bucket of
// rate a second and burst, and whether the peer is to be cut off now
// (once: the drops of one second reached rate/4).
func (g *recvGate) allow(now time.Time, rate, burst float64) (ok, cut bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.last.IsZero() {
		g.tokens, g.last, g.windowAt = burst, now, now
	}
	if d := now.Sub(g.last).Seconds(); d > 0 {
		g.tokens = min(burst, g.tokens+d*rate)
		g.last = now
	}
	if g.tokens >= 1 {
		g.tokens--
		return true, false
	}
	if now.Sub(g.windowAt) >= time.Second {
		g.windowAt, g.drops = now, 0
	}
	g.drops++
	if !g.cut && g.drops >= rate/4 {
		g.cut = true
		return false, true
	}
	return false, false
}

// gated passes a datagram of a peer through its gate at now: it reports
// whether to queue it, counts what it drops, and cuts the peer off
// (remove, on a goroutine of its own) when the gate says so.
func (c *dcConn) gated(g *recvGate, now time.Time, remove func()) bool {
	rate := c.cfg.RecvRate
	if rate < 0 {
		return true
	}
	ok, cut := g.allow(now, rate, float64(c.cfg.RecvBurst))
	if ok {
		return true
	}
	c.mu.Lock()
	c.rateLimited++
	if cut {
		c.cutOff++
	}
	c.mu.Unlock()
	if cut {
		go remove()
	}
	return false
}
