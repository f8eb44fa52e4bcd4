package client

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const dt = time.Second / 60

// TestLeadStart: on hearing server tick T with round trip r, the clock
// runs r plus the target margin ahead of T.
func TestLeadStart(t *testing.T) {
	l := newLeadControl(dt, 2*time.Millisecond, 2*time.Millisecond+2*dt, 20*dt)
	l.start(t0, 100, 100*time.Millisecond, 0)
	want := int64(100 + (100*time.Millisecond+l.target)/dt)
	if got := l.tick(t0); got != want {
		t.Fatalf("tick at start = %d, want %d", got, want)
	}
	if got := l.tick(t0.Add(10 * dt)); got != want+10 {
		t.Fatalf("ten ticks later: %d, want %d", got, want+10)
	}
}

// TestLeadHysteresis: margins inside the band change nothing; one outside
// corrects once, and nothing more happens until the hold passes.
func TestLeadHysteresis(t *testing.T) {
	l := newLeadControl(dt, 2*time.Millisecond, 2*time.Millisecond+2*dt, 20*dt)
	l.start(t0, 0, 50*time.Millisecond, 0)
	now := t0.Add(time.Second)
	l.advance(now)
	base := l.base
	for _, m := range []time.Duration{2 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond} {
		l.feedback(now, m, 50*time.Millisecond, 0)
	}
	if l.base != base || l.pending != 0 || l.corrections != 0 {
		t.Fatalf("margins inside the band moved the clock: %+v", l)
	}
	// 10 ms late: speed up by the distance to the target (slewed).
	l.feedback(now, -10*time.Millisecond, 50*time.Millisecond, 0)
	if l.corrections != 1 || l.pending != -10*time.Millisecond-l.target {
		t.Fatalf("late margin: corrections %d pending %v", l.corrections, l.pending)
	}
	l.feedback(now.Add(time.Millisecond), -50*time.Millisecond, 50*time.Millisecond, 0)
	if l.corrections != 1 {
		t.Fatal("corrected again during the hold")
	}
	// The slew applies a quarter of the time passed.
	base = l.base
	l.advance(now.Add(40 * time.Millisecond))
	if got := base.Sub(l.base); got != 10*time.Millisecond {
		t.Fatalf("40 ms of slewing moved the clock %v, want 10ms", got)
	}
	l.advance(now.Add(time.Second))
	if l.pending != 0 {
		t.Fatalf("correction not applied after a second: %v left", l.pending)
	}
}

// TestLeadJump: a correction of many ticks (after a blackout, say) applies
// at once.
func TestLeadJump(t *testing.T) {
	l := newLeadControl(dt, 2*time.Millisecond, 2*time.Millisecond+2*dt, 20*dt)
	l.start(t0, 0, 50*time.Millisecond, 0)
	now := t0.Add(time.Second)
	before := l.tick(now)
	l.feedback(now, -500*time.Millisecond, 50*time.Millisecond, 0)
	if got := l.tick(now); got-before < 30 {
		t.Fatalf("500 ms late moved the clock %d ticks", got-before)
	}
}
