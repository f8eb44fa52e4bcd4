package server_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// byeOf returns the first goodbye among c's datagrams.
func byeOf(t *testing.T, c *transport.SimConn) (codec.Bye, bool) {
	t.Helper()
	for _, b := range recvAll(c) {
		if typ, _, _ := codec.Peek(b); typ == codec.TypeBye {
			m, _, err := codec.ParseBye(b)
			if err != nil {
				t.Fatal(err)
			}
			return m, true
		}
	}
	return codec.Bye{}, false
}

// TestPeers: the operator's figures of each player count its bytes both
// ways (their sums are the server's), its round trip and its late inputs.
func TestPeers(t *testing.T) {
	r := newRig(t, server.Config{})
	a, b := r.peer("a"), r.peer("b")
	r.join(a)
	r.join(b)
	r.run(300 * time.Millisecond)
	peers := r.srv.Peers(nil)
	if len(peers) != 2 || peers[0].ID != 0 || peers[1].ID != 1 || peers[0].Addr != "sim:a" || !peers[0].Present {
		t.Fatalf("peers %+v", peers)
	}
	var in, out uint64
	for _, p := range peers {
		if p.BytesIn == 0 || p.BytesOut == 0 || p.LateInputs == 0 || p.Since.IsZero() || p.RTT <= 0 {
			t.Errorf("peer %d: %+v", p.ID, p)
		}
		in, out = in+p.BytesIn, out+p.BytesOut
	}
	st := r.srv.Stats()
	if in != st.BytesIn || out != st.BytesOut {
		t.Errorf("peers' bytes %d in, %d out; the server's %d, %d", in, out, st.BytesIn, st.BytesOut)
	}
}

// TestRemove: a removed player is said goodbye (kicked), leaves in the
// next tick, its seat is free for a newcomer and its cookie does not
// rejoin; an unknown id is ErrNoPlayer.
func TestRemove(t *testing.T) {
	r := newRig(t, server.Config{MaxPlayers: 2})
	a, b := r.peer("a"), r.peer("b")
	wa := r.join(a)
	r.join(b)
	r.run(100 * time.Millisecond)
	recvAll(a)
	if err := r.srv.Remove(0); err != nil {
		t.Fatal(err)
	}
	if m, ok := byeOf(t, a); !ok || m.Why() != codec.ReasonKicked {
		t.Fatalf("goodbye %+v %v, want kicked", m, ok)
	}
	r.events = nil
	r.run(50 * time.Millisecond)
	if len(r.events) == 0 || r.events[0] != (game.Event{Kind: game.Leave, Player: 0}) {
		t.Fatalf("events %v, want player 0's leave", r.events)
	}
	if err := r.srv.Remove(0); !errors.Is(err, server.ErrNoPlayer) {
		t.Fatalf("remove again: %v", err)
	}
	if w := r.welcome(r.peer("c")); w.Player != 0 {
		t.Fatalf("the newcomer got seat %d, want the freed 0", w.Player)
	}
	back := r.peer("a2")
	r.hello(back, codec.Hello{Game: r.fingerprint(), HasCookie: true, Cookie: wa.Cookie})
	r.run(time.Millisecond)
	for _, m := range recvAll(back) {
		if typ, _, _ := codec.Peek(m); typ == codec.TypeWelcome {
			t.Fatal("the removed player's cookie rejoined")
		}
	}
}

// TestSetClosed: a closed match refuses new players and spectators (full)
// while who is in it plays on and rejoins with its cookie; opened again,
// it admits them.
func TestSetClosed(t *testing.T) {
	r := newRig(t, server.Config{})
	a := r.peer("a")
	wa := r.join(a)
	r.run(100 * time.Millisecond)
	r.srv.SetClosed(true)
	if !r.srv.Closed() {
		t.Fatal("not closed")
	}
	for _, h := range []codec.Hello{{Game: r.fingerprint()}, {Game: r.fingerprint(), Spectator: true}} {
		c := r.peer("new")
		r.hello(c, h)
		r.run(time.Millisecond)
		refused := false
		for _, b := range recvAll(c) {
			if typ, _, _ := codec.Peek(b); typ == codec.TypeRefuse {
				m, _, _ := codec.ParseRefuse(b)
				refused = m.Reason == codec.ReasonFull
			}
		}
		if !refused {
			t.Fatalf("hello %+v not refused full", h)
		}
		c.Close()
	}
	back := r.peer("a-again")
	r.hello(back, codec.Hello{Game: r.fingerprint(), HasCookie: true, Cookie: wa.Cookie})
	r.run(time.Millisecond)
	welcomed := false
	for _, b := range recvAll(back) {
		if typ, _, _ := codec.Peek(b); typ == codec.TypeWelcome {
			welcomed = true
		}
	}
	if !welcomed {
		t.Fatal("a player with its cookie was not taken back")
	}
	r.srv.SetClosed(false)
	if w := r.welcome(r.peer("b")); w.Player != 1 {
		t.Fatalf("opened again: seat %d", w.Player)
	}
}

// TestEndWithOperator: a match the operator ends says goodbye with the
// operator's reason and the last tick, once the player acknowledged it.
func TestEndWithOperator(t *testing.T) {
	r := newRig(t, server.Config{})
	a := r.peer("a")
	w := r.join(a)
	r.run(200 * time.Millisecond)
	last := r.srv.Tick()
	r.srv.EndWith(r.now, codec.ReasonOperator)
	recvAll(a)
	ack := codec.ClientInputs{Tag: w.Tag, First: last + 1, Ack: reliable.Ack{Next: last + 1}}
	if err := a.Send("sim:server", ack.Append(nil)); err != nil {
		t.Fatal(err)
	}
	r.run(20 * time.Millisecond)
	m, ok := byeOf(t, a)
	if !ok || m.Why() != codec.ReasonOperator || !m.HasLast || m.Last != last {
		t.Fatalf("goodbye %+v %v, want the operator's with last tick %d", m, ok, last)
	}
}
