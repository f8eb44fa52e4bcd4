package server_test

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/server"
)

// TestEndLingers: after End, a spectator that acknowledges nothing is
// sent the ticks it lacks again and again, and said goodbye (with the
// last tick) only at the linger's end; one that acknowledges the last
// tick is said goodbye at once; a hello during the end is not answered;
// the server is Done once both were said goodbye and went quiet, and
// meanwhile asks to be updated once a tick, not at once.
func TestEndLingers(t *testing.T) {
	r := newRig(t, server.Config{Linger: time.Second})
	r.join(r.peer("a"))
	mute, acker := r.peer("mute"), r.peer("acker")
	if _, ok := r.spectate(mute, 0); !ok {
		t.Fatal("no welcome")
	}
	aw, ok := r.spectate(acker, 0)
	if !ok {
		t.Fatal("no welcome")
	}
	r.run(500 * time.Millisecond)
	last := r.srv.Tick()
	r.srv.End(r.now)
	endAt := r.now
	recvAll(mute)
	recvAll(acker)
	r.hello(r.peer("late"), codec.Hello{Game: r.fingerprint()})
	var ackerBye, muteBye time.Time
	muteTicks := 0
	for r.now.Sub(endAt) < 3*time.Second && !r.srv.Done() {
		if ackerBye.IsZero() {
			// It holds every tick it was sent (all, in the simulator).
			ack := codec.ClientInputs{Tag: aw.Tag, First: last + 1, Ack: reliable.Ack{Next: last + 1}}
			if err := acker.Send("sim:server", ack.Append(nil)); err != nil {
				t.Fatal(err)
			}
		}
		r.run(10 * time.Millisecond)
		if d := r.srv.NextDeadline(); !d.After(r.now) {
			// A driver (Host.Run, host.Multi) would spin.
			t.Fatalf("after the end, the next deadline %v is not after now %v", d.Sub(t0), r.now.Sub(t0))
		}
		for _, b := range recvAll(acker) {
			if typ, _, _ := codec.Peek(b); typ == codec.TypeBye && ackerBye.IsZero() {
				m, _, err := codec.ParseBye(b)
				if err != nil || m.Why() != codec.ReasonEnded || !m.HasLast || m.Last != last {
					t.Fatalf("acker's goodbye %+v, %v; last tick %d", m, err, last)
				}
				ackerBye = r.now
			}
		}
		for _, b := range recvAll(mute) {
			switch typ, _, _ := codec.Peek(b); typ {
			case codec.TypeServerTicks:
				if !muteBye.IsZero() {
					t.Fatal("ticks after the goodbye")
				}
				muteTicks++
			case codec.TypeBye:
				if muteBye.IsZero() {
					muteBye = r.now
				}
			}
		}
	}
	if r.srv.Tick() != last {
		t.Fatalf("ticks ran after End: %d, last %d", r.srv.Tick(), last)
	}
	if ackerBye.IsZero() || ackerBye.Sub(endAt) > 300*time.Millisecond {
		t.Fatalf("the spectator with every tick was said goodbye at %v after the end", ackerBye.Sub(endAt))
	}
	if muteBye.IsZero() || muteBye.Sub(endAt) < time.Second || muteTicks < 3 {
		t.Fatalf("the mute spectator: goodbye %v after the end, %d datagrams of ticks before", muteBye.Sub(endAt), muteTicks)
	}
	if !r.srv.Done() {
		t.Fatal("not done 3 s after the end")
	}
	if st := r.srv.Stats(); st.Spectators != 2 || st.Players != 1 {
		t.Fatalf("the late hello was admitted: %+v", st)
	}
	t.Logf("goodbyes %v and %v after the end; %d datagrams of ticks to the mute spectator", ackerBye.Sub(endAt), muteBye.Sub(endAt), muteTicks)
}
