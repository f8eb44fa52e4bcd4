package client

import "time"

// leadControl keeps the client's tick clock ahead of the server's by about
// half the round trip plus a margin, from the server's reports of how early
// this client's inputs arrive.
//
// The clock is tick(now) = (now - base) / dt. A correction moves base:
// later to slow down (the client's inputs arrive too early), earlier to
// speed up (they arrive late). Corrections follow a band with hysteresis:
// nothing happens while the reported margin stays inside [low, high]; once
// it leaves the band, the clock is corrected toward target and no further
// correction is made until the effect of this one can have come back in
// the server's reports (a round trip plus the server's report window).
// Small corrections are slewed (the clock runs at most slewRate faster or
// slower than real time) so that play stays smooth; large ones (after a
// blackout, say) jump.
type leadControl struct {
	dt       time.Duration
	base     time.Time
	started  bool
	pending  time.Duration // correction of base still to apply; > 0 slows
	last     time.Time     // when pending was last applied
	hold     time.Time     // no new correction before this
	low      time.Duration
	high     time.Duration
	target   time.Duration
	window   time.Duration // the server's report window
	slewRate float64
	jumpOver time.Duration // corrections larger than this apply at once

	corrections int
}

func newLeadControl(dt, low, high, window time.Duration) leadControl {
	return leadControl{
		dt:       dt,
		low:      low,
		high:     high,
		target:   (low + high) / 2,
		window:   window,
		slewRate: 0.25,
		jumpOver: 8 * dt,
	}
}

// start sets the clock on hearing server tick serverTick at now, with rtt
// the current round-trip estimate: the server is about rtt/2 further on,
// and our inputs take another rtt/2 to reach it.
// predicted is the tick the client has predicted up to: if the clock now
// says less, the client waits, and no report can show the new lead before
// it sends inputs again.
func (l *leadControl) start(now time.Time, serverTick uint32, rtt time.Duration, predicted int64) {
	l.base = now.Add(-(time.Duration(serverTick)*l.dt + rtt + l.target))
	l.started = true
	l.last = now
	l.pending = 0
	l.hold = now.Add(l.waitFor(now, predicted) + rtt + l.window + l.dt)
}

// waitFor returns how long a client at tick predicted waits before the
// clock reaches it.
func (l *leadControl) waitFor(now time.Time, predicted int64) time.Duration {
	if d := predicted - l.tick(now); d > 0 {
		return time.Duration(d) * l.dt
	}
	return 0
}

// advance applies the slewed part of a pending correction for the time
// passed since the last call.
func (l *leadControl) advance(now time.Time) {
	if !l.started {
		return
	}
	el := now.Sub(l.last)
	l.last = now
	if l.pending == 0 || el <= 0 {
		return
	}
	step := time.Duration(float64(el) * l.slewRate)
	switch {
	case l.pending > 0:
		step = min(step, l.pending)
	default:
		step = -min(step, -l.pending)
	}
	l.base = l.base.Add(step)
	l.pending -= step
}

// tick returns the tick the client should have predicted up to at now.
func (l *leadControl) tick(now time.Time) int64 {
	if !l.started {
		return 0
	}
	d := now.Sub(l.base)
	if d < 0 {
		return 0
	}
	return int64(d / l.dt)
}

// fraction returns how far now is between the tick the clock is at and the
// next one, in [0, 1).
func (l *leadControl) fraction(now time.Time) float64 {
	if !l.started {
		return 0
	}
	d := now.Sub(l.base)
	if d < 0 {
		return 0
	}
	return float64(d%l.dt) / float64(l.dt)
}

// feedback takes the server's report of the smallest margin by which this
// client's inputs arrived over its report window (negative when late).
func (l *leadControl) feedback(now time.Time, margin, rtt time.Duration, predicted int64) {
	if !l.started || now.Before(l.hold) {
		return
	}
	if margin >= l.low && margin <= l.high {
		return
	}
	corr := margin - l.target // > 0: too early, slow down
	l.corrections++
	if corr > l.jumpOver || corr < -l.jumpOver {
		l.base = l.base.Add(corr)
		l.pending = 0
	} else {
		l.pending = corr
	}
	// Wait for the correction to be applied, to reach the server and to
	// fill the server's report window before judging again.
	slew := time.Duration(float64(abs(l.pending)) / l.slewRate)
	l.hold = now.Add(l.waitFor(now, predicted) + slew + rtt + l.window + l.dt)
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
