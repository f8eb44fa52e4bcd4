package webrtc

import (
	"testing"
	"time"
)

// TestRecvGate (issue 43 item 4), in made-up time: a player's 120
// datagrams a second for a minute all pass; a flood of 5,000 a second
// spends its burst of 250 (and the rate's refill) in 62.5 ms, then 4,000
// a second are dropped, and it is cut off once 250 were dropped within a
// second (125 ms in), once only.
func TestRecvGate(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var honest recvGate
	for i := range 120 * 60 {
		if ok, cut := honest.allow(t0.Add(time.Duration(i)*time.Second/120), 1000, 250); !ok || cut {
			t.Fatalf("player's datagram %d: ok %v cut %v", i, ok, cut)
		}
	}
	var flood recvGate
	passed, dropped, cuts := 0, 0, 0
	var cutAt time.Duration
	for i := range 5000 * 2 {
		at := time.Duration(i) * time.Second / 5000
		ok, cut := flood.allow(t0.Add(at), 1000, 250)
		switch {
		case ok:
			passed++
		default:
			dropped++
		}
		if cut {
			cuts++
			cutAt = at
		}
	}
	if cuts != 1 || cutAt < 120*time.Millisecond || cutAt > 130*time.Millisecond {
		t.Fatalf("cut %d times, at %v", cuts, cutAt)
	}
	if passed > 250+2*1000+1 {
		t.Fatalf("%d of 10,000 passed in 2 s at 1,000 a second, burst 250", passed)
	}
}
