package reliable

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestRecvWindow(t *testing.T) {
	var w RecvWindow
	w.Reset(10)
	if !w.Has(9) || w.Has(10) {
		t.Fatal("reset")
	}
	for _, s := range []uint32{12, 14, 11} {
		if !w.Add(s) {
			t.Fatalf("Add(%d) not new", s)
		}
	}
	if w.Add(12) || w.Add(5) {
		t.Fatal("duplicate or old reported new")
	}
	// Holds <10, 11, 12, 14: Next = 10, mask bits for 11, 12, 14.
	if a := w.Ack(); a.Next != 10 || a.Mask != 0b1011 {
		t.Fatalf("ack %+v", a)
	}
	w.Add(10)
	if a := w.Ack(); a.Next != 13 || a.Mask != 0b1 {
		t.Fatalf("ack after 10: %+v", a)
	}
	if w.Add(13 + 65) {
		t.Fatal("beyond the mask accepted")
	}
	w.AdvanceTo(20)
	if a := w.Ack(); a.Next != 20 || a.Mask != 0 {
		t.Fatalf("advance: %+v", a)
	}
	// Wrap-around of uint32 sequence numbers.
	w.Reset(1<<32 - 2)
	w.Add(1<<32 - 2)
	w.Add(0)
	w.Add(1<<32 - 1)
	if a := w.Ack(); a.Next != 1 || !a.Has(1<<32-1) || a.Has(1) {
		t.Fatalf("wrap: %+v", a)
	}
}

func TestRecvWindowRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var w RecvWindow
	w.Reset(0)
	held := map[uint32]bool{}
	for i := 0; i < 5000; i++ {
		s := w.Ack().Next + uint32(rng.IntN(70))
		if w.Add(s) {
			held[s] = true
		}
		a := w.Ack()
		for q := a.Next - 5; q != a.Next+70; q++ {
			want := held[q] || int32(q-a.Next) < 0
			if a.Has(q) != want || w.Has(q) != want {
				t.Fatalf("seq %d: Has=%v want %v (ack %+v)", q, a.Has(q), want, a)
			}
		}
	}
}

func TestResenderTimeout(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := NewResender(ResendConfig{InitialRTT: 100 * time.Millisecond, MinRTO: 10 * time.Millisecond, Selective: true}, 0)
	for i := uint32(0); i < 5; i++ {
		r.Sent(i, t0.Add(time.Duration(i)*10*time.Millisecond))
	}
	if d := r.Due(t0.Add(45*time.Millisecond), nil); len(d) != 0 {
		t.Fatalf("due too early: %v", d)
	}
	// Ack 0 and 1 at 100 ms: RTT samples 90 ms (from seq 1).
	if n := r.OnAck(Ack{Next: 2}, t0.Add(100*time.Millisecond)); n != 2 {
		t.Fatalf("newly acked %d", n)
	}
	if r.RTT() != 90*time.Millisecond || r.Base() != 2 {
		t.Fatalf("rtt %v base %d", r.RTT(), r.Base())
	}
	rto := r.RTO()
	if rto != 90*time.Millisecond+4*45*time.Millisecond {
		t.Fatalf("rto %v", rto)
	}
	// Seq 2 was sent at 20 ms: due once now >= 20ms + RTO.
	if d := r.Due(t0.Add(20*time.Millisecond+rto-time.Millisecond), nil); len(d) != 0 {
		t.Fatalf("due before RTO: %v", d)
	}
	if d := r.Due(t0.Add(20*time.Millisecond+rto), nil); len(d) != 1 || d[0] != 2 {
		t.Fatalf("due at RTO: %v", d)
	}
}

func TestResenderGap(t *testing.T) {
	t0 := time.Unix(0, 0)
	r := NewResender(ResendConfig{Selective: true}, 100)
	for i := uint32(100); i < 110; i++ {
		r.Sent(i, t0.Add(time.Duration(i-100)*time.Millisecond))
	}
	// 101 lost; 100, 102, 103 arrived: not yet 3 beyond 101.
	r.OnAck(Ack{Next: 101, Mask: 0b11}, t0.Add(50*time.Millisecond))
	if d := r.Due(t0.Add(51*time.Millisecond), nil); len(d) != 0 {
		t.Fatalf("due below threshold: %v", d)
	}
	r.OnAck(Ack{Next: 101, Mask: 0b111}, t0.Add(52*time.Millisecond))
	d := r.Due(t0.Add(52*time.Millisecond), nil)
	if len(d) != 1 || d[0] != 101 {
		t.Fatalf("gap resend: %v", d)
	}
	r.Sent(101, t0.Add(52*time.Millisecond))
	if d := r.Due(t0.Add(53*time.Millisecond), nil); len(d) != 0 {
		t.Fatalf("resent number due again at once: %v", d)
	}
	if r.Acked(101) || !r.Acked(102) || !r.Acked(99) || r.Acked(200) {
		t.Fatal("Acked")
	}
	if r.Sent(100, t0) || r.Sent(100+ResendWindow+5, t0) {
		t.Fatal("Sent of acked or out-of-window number")
	}
	// Redundant mode returns every unacked number.
	rr := NewResender(ResendConfig{}, 0)
	for i := uint32(0); i < 4; i++ {
		rr.Sent(i, t0)
	}
	rr.OnAck(Ack{Next: 1, Mask: 0b10}, t0)
	if d := rr.Due(t0, nil); len(d) != 2 || d[0] != 1 || d[1] != 2 {
		t.Fatalf("redundant: %v", d)
	}
}

// TestResenderDelivers runs a lossy link in made-up time and checks that
// everything gets through and the sender's window drains.
func TestResenderDelivers(t *testing.T) {
	for _, redundant := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(9, 9))
		now := time.Unix(0, 0)
		step := time.Second / 60
		oneWay := 75 * time.Millisecond
		s := NewResender(ResendConfig{Selective: !redundant}, 0)
		var w RecvWindow
		w.Reset(0)
		type pkt struct {
			at   time.Time
			seqs []uint32
			ack  Ack
		}
		var down, up []pkt
		const n = 600
		for tick := uint32(0); tick < n+120; tick++ {
			now = now.Add(step)
			var seqs []uint32
			if tick < n {
				seqs = append(seqs, tick)
			}
			for _, q := range s.Due(now, nil) {
				if q != tick {
					seqs = append(seqs, q)
				}
			}
			for _, q := range seqs {
				s.Sent(q, now)
			}
			if rng.IntN(20) != 0 {
				down = append(down, pkt{at: now.Add(oneWay), seqs: seqs})
			}
			kept := down[:0]
			for _, p := range down {
				if p.at.After(now) {
					kept = append(kept, p)
					continue
				}
				for _, q := range p.seqs {
					w.Add(q)
				}
			}
			down = kept
			if rng.IntN(20) != 0 {
				up = append(up, pkt{at: now.Add(oneWay), ack: w.Ack()})
			}
			keptUp := up[:0]
			for _, p := range up {
				if p.at.After(now) {
					keptUp = append(keptUp, p)
					continue
				}
				s.OnAck(p.ack, now)
			}
			up = keptUp
		}
		if w.Ack().Next != n || s.Base() != n {
			t.Fatalf("redundant=%v: receiver next %d, sender base %d", redundant, w.Ack().Next, s.Base())
		}
		if rtt := s.RTT(); rtt < 140*time.Millisecond || rtt > 190*time.Millisecond {
			t.Fatalf("redundant=%v: rtt estimate %v", redundant, rtt)
		}
	}
}
