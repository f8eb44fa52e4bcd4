package relay

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// TestHubStallKeepsHosts: a relay stalled for 10 s (its timer and
// readers starved, in made-up time) wakes with two room hosts and a
// match server that all answered every ping before the stall: none is
// dropped (by the wall clock all three were silent 10 s, more than
// HostTimeout). After the stall the host and the server answer again and
// stay; the other host stays silent and is dropped within HostTimeout of
// the relay's running time.
func TestHubStallKeepsHosts(t *testing.T) {
	h := newTestHub(RoomConfig{})
	hostA, _ := hostRoom(t, h, "")
	hostB := mustConnect(t, h, "10.0.0.9")
	sendMsg(h, hostB, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
	if m := next(t, hostB); m.Type != roomproto.MsgHosted {
		t.Fatalf("host B: %+v", m)
	}
	srv := startServer(t, h, "10.0.0.5", 2, false)
	sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
	if m := next(t, srv); m.Type != roomproto.MsgHosted {
		t.Fatalf("server's room: %+v", m)
	}
	answering := []*roomConn{hostA, hostB, srv}
	now := t0
	step := func() {
		now = now.Add(250 * time.Millisecond)
		h.tick(now)
		for _, c := range answering {
			pump(t, h, c, now.Add(20*time.Millisecond))
		}
	}
	for range 20 {
		step()
	}
	now = now.Add(10 * time.Second) // the stall
	h.tick(now)
	for i, c := range []*roomConn{hostA, hostB, srv} {
		if c.killed {
			t.Fatalf("host %d dropped after the relay's own stall", i)
		}
	}
	if st := h.roomStats(); st.Stalls != 1 || st.Stalled != 10*time.Second-h.stallAllowance() {
		t.Errorf("stalls %d for %v, want 1 for %v", st.Stalls, st.Stalled, 10*time.Second-h.stallAllowance())
	}
	answering = []*roomConn{hostA, srv}
	woke := now
	var dropped time.Duration // after the stall
	for now.Sub(woke) < 4*time.Second {
		step()
		for len(hostB.out) > 0 {
			next(t, hostB) // read, never answered
		}
		if hostB.killed && dropped == 0 {
			dropped = now.Sub(woke)
		}
	}
	if !hostB.killed || dropped > h.cfg.HostTimeout {
		t.Fatalf("host silent since the stall: dropped %v (%v after the stall), want within HostTimeout", hostB.killed, dropped)
	}
	t.Logf("the silent host was dropped %v after the stall", dropped)
	if hostA.killed || srv.killed {
		t.Fatalf("hosts answering after the stall dropped: host %v, server %v", hostA.killed, srv.killed)
	}
	if _, rooms := h.counts(); rooms != 2 {
		t.Fatalf("%d rooms, want host A's and the server's", rooms)
	}
}
