package reliable

import (
	"testing"
	"time"
)

// TestResenderReset uses a Resender (numbers sent, some acknowledged,
// some lost, a round-trip sample, a selective config) and resets it with
// another config and first number: it is then equal, field by field and
// in its whole window, to a new one, and behaves as one (nothing due,
// nothing acknowledged, the initial round trip).
func TestResenderReset(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := NewResender(ResendConfig{Selective: true, InitialRTT: 50 * time.Millisecond}, 1)
	for seq := uint32(1); seq < 900; seq++ {
		r.Sent(seq, t0.Add(time.Duration(seq)*time.Millisecond))
	}
	r.OnAck(Ack{Next: 400, Mask: 0b1011}, t0.Add(time.Second))
	if r.RTT() == 50*time.Millisecond || r.Base() == 1 || len(r.Due(t0.Add(5*time.Second), nil)) == 0 {
		t.Fatalf("the used Resender: rtt %v, base %d", r.RTT(), r.Base())
	}
	cfg := ResendConfig{MaxRTO: time.Second}
	r.Reset(cfg, 7000)
	fresh := NewResender(cfg, 7000)
	if *r != *fresh {
		t.Fatalf("a reset Resender differs from a new one: base %d next %d rtt %v anyAcked %v",
			r.base, r.next, r.srtt, r.anyAcked)
	}
	now := t0.Add(10 * time.Second)
	if r.Base() != 7000 || r.Next() != 7000 || r.RTT() != DefaultResendConfig.InitialRTT || r.Acked(7000) ||
		len(r.Due(now, nil)) != 0 {
		t.Errorf("after Reset: base %d next %d rtt %v acked %v due %v", r.Base(), r.Next(), r.RTT(), r.Acked(7000), r.Due(now, nil))
	}
	// A number of the old owner's window, reused: sent once, due once.
	if !r.Sent(7000+5, now) || len(r.Due(now.Add(3*time.Second), nil)) != 1 {
		t.Errorf("after Reset, one number sent: due %v", r.Due(now.Add(3*time.Second), nil))
	}
	if allocs := testing.AllocsPerRun(10, func() { r.Reset(cfg, 1) }); allocs != 0 {
		t.Errorf("Reset allocates %.0f times", allocs)
	}
}
