package server_test

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/server"
)

// TestShutdownSaysBye: Shutdown sends every player a bye with
// ReasonShutdown.
func TestShutdownSaysBye(t *testing.T) {
	r := newRig(t, server.Config{StartPlayers: 2})
	a, b := r.peer("a"), r.peer("b")
	wa, wb := r.join(a), r.join(b)
	recvAll(a)
	recvAll(b)
	if err := r.srv.Shutdown(); err != nil {
		t.Fatal(err)
	}
	r.net.Advance(r.now.Add(time.Millisecond))
	for i, c := range []struct {
		tag  uint8
		msgs [][]byte
	}{{wa.Tag, recvAll(a)}, {wb.Tag, recvAll(b)}} {
		byes := 0
		for _, m := range c.msgs {
			if bye, _, err := codec.ParseBye(m); err == nil && bye.Reason == codec.ReasonShutdown && bye.Tag == c.tag {
				byes++
			}
		}
		if byes == 0 {
			t.Errorf("player %d: no shutdown bye in %d datagrams", i, len(c.msgs))
		}
	}
}

// TestCookieRejoinFromNewAddress: a player still in the match who says
// hello with its cookie from another address continues there as the same
// player, with a new tag and a welcome at the current tick; the old
// address is forgotten.
func TestCookieRejoinFromNewAddress(t *testing.T) {
	r := newRig(t, server.Config{StartPlayers: 1})
	a := r.peer("a")
	w := r.join(a)
	r.run(500 * time.Millisecond)
	b := r.peer("b")
	r.hello(b, codec.Hello{Game: r.fingerprint(), HasCookie: true, Cookie: w.Cookie})
	r.run(time.Millisecond)
	var w2 codec.Welcome
	for _, m := range recvAll(b) {
		if typ, _, _ := codec.Peek(m); typ == codec.TypeWelcome {
			w2, _, _ = codec.ParseWelcome(m)
		}
	}
	if w2.Tag == 0 || w2.Player != w.Player || w2.Tag == w.Tag || w2.Tick < 25 {
		t.Fatalf("welcome %+v after %+v", w2, w)
	}
	if st := r.srv.Stats(); st.Rejoins != 1 || st.Players != 1 || st.Rebases != 1 {
		t.Fatalf("stats %+v", st)
	}
	// The old address speaks for nobody now.
	recvAll(a)
	m := codec.ClientInputs{Tag: w.Tag, First: 1, Ack: reliable.Ack{Next: 1}}
	_ = a.Send("sim:server", m.Append(nil))
	bad := r.srv.Stats().BadDatagrams
	r.run(time.Millisecond)
	if r.srv.Stats().BadDatagrams != bad+1 {
		t.Fatal("the old address is still a player")
	}
	// The old cookie, tried once more, still names the player (the last
	// few welcomes' cookies stay valid); a flipped one does not.
	c := r.peer("c")
	bad2 := w.Cookie
	bad2[3] ^= 1
	r.hello(c, codec.Hello{Game: r.fingerprint(), HasCookie: true, Cookie: bad2})
	r.run(time.Millisecond)
	if got := refusal(t, c); got != codec.ReasonCookie {
		t.Fatalf("flipped cookie: %v", got)
	}
}
