package client

import (
	"time"

	"github.com/rewindnet/rewind/codec"
)

// lockstepState is what a lockstep client keeps besides the core: the
// last tick whose input it sampled, and when the shown tick last moved.
type lockstepState struct {
	sampled uint32    // our input is sampled up to this tick
	shown   uint32    // the tick shown at the last Update
	shownAt time.Time // when it was shown
}

// lockstepUpdate is a lockstep client's Update after fold: the shown
// world is the verified one (fold stepped every confirmed tick and
// nothing else); it samples our input up to the tick lockstepTarget
// names and reports whether it sampled any.
func (c *Client[I]) lockstepUpdate(now time.Time) bool {
	k := c.core
	ls := &c.ls
	if k.predicted != ls.shown || ls.shownAt.IsZero() {
		ls.shown, ls.shownAt = k.predicted, now
	} else if now.Sub(ls.shownAt) > 2*c.dt {
		c.st.Stalls++ // the next tick is overdue: the last world stays
	}
	if c.rx.decodeNext <= 1 || c.fetch.active {
		return false
	}
	c.autoDelay()
	target := c.lockstepTarget()
	if ls.sampled == 0 {
		ls.sampled = target - 1
		c.tx.firstOwn = target
	}
	sampled := false
	for ls.sampled < target {
		ls.sampled++
		c.sample(ls.sampled)
		sampled = true
	}
	return sampled
}

// lockstepTarget returns the last tick whose input a lockstep client
// samples now: InputDelay ticks past the shown (verified) tick, but never
// a tick the server will have run before the input can reach it (the
// newest tick heard of plus a round trip's ticks plus lockstepMargin), and never
// further past the verified tick than the rings hold. With
// Config.ExactDelay it is InputDelay-1 ticks past the verified tick (at
// least one), with no floor.
func (c *Client[I]) lockstepTarget() uint32 {
	k := c.core
	var target uint32
	if c.cfg.ExactDelay {
		target = k.verified + uint32(max(c.cfg.InputDelay-1, 1))
	} else {
		target = k.verified + uint32(c.cfg.InputDelay)
		target = max(target, c.rx.latest+c.rttTicks()+lockstepMargin)
	}
	return min(target, k.verified+c.window)
}

// rttTicks returns the measured round trip in ticks, rounded up.
func (c *Client[I]) rttTicks() uint32 {
	return uint32((c.clock.rtt + c.dt - 1) / c.dt)
}

// autoDelay sets the input delay from the round trip (Config.AutoInputDelay).
func (c *Client[I]) autoDelay() {
	if c.cfg.AutoInputDelay {
		c.cfg.InputDelay = int(min(c.rttTicks()+lockstepMargin, c.window))
	}
}

// lastOwn returns the newest tick we have an input for.
func (c *Client[I]) lastOwn() uint32 {
	if c.cfg.Lockstep {
		return c.ls.sampled
	}
	return c.core.predicted + uint32(c.cfg.InputDelay)
}

// lockstepMargin is the ticks a lockstep client's input is sent ahead of
// the round trip (jitter, a lost datagram resent with the next).
const lockstepMargin = 3

// waitingState is the server's last word on a stall: whom the match
// waits for, and the last tick run before it.
type waitingState struct {
	set  uint64
	tick uint32
}

// onWaiting takes the server's Waiting: the match is held after its Tick
// for the players of its set. A Waiting older than a tick already heard
// of is stale.
func (c *Client[I]) onWaiting(b []byte) error {
	m, _, err := codec.ParseWaiting(b)
	if err != nil {
		return err
	}
	if c.rx.latest != 0 && int32(m.Tick-c.rx.latest) < 0 {
		return nil
	}
	c.waiting.set, c.waiting.tick = m.Players, m.Tick
	c.st.WaitingHeard++
	return nil
}

// WaitingFor returns the players the server last said the match waits
// for (bit p for player p), or 0 when it is not stalled.
func (c *Client[I]) WaitingFor() uint64 { return c.waiting.set }
