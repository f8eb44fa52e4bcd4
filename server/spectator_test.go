package server_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// spectate says hello as a spectator from c and returns its welcome (none:
// ok false).
func (r *rig) spectate(c *transport.SimConn, delay uint32) (codec.Welcome, bool) {
	r.t.Helper()
	r.hello(c, codec.Hello{Game: r.fingerprint(), Spectator: true, Delay: delay})
	r.run(time.Millisecond)
	for _, b := range recvAll(c) {
		if typ, _, _ := codec.Peek(b); typ == codec.TypeWelcome {
			w, _, err := codec.ParseWelcome(b)
			if err != nil {
				r.t.Fatal(err)
			}
			return w, true
		}
	}
	return codec.Welcome{}, false
}

// playScript runs a 2 s match of one player sending scripted inputs;
// with spectate, a spectator joins too and sends inputs (for the ticks the
// player leaves to repeat), chat, a page request and a bye, all of which
// must change nothing. It returns the world's hash and the stats.
func playScript(t *testing.T, spectate bool) (uint64, server.Stats) {
	r := newRig(t, server.Config{MaxPlayers: 1, MaxSpectators: 2})
	a := r.peer("a")
	w := r.join(a)
	it, err := inputs.NewType[testgame.Input]()
	if err != nil {
		t.Fatal(err)
	}
	var tag uint8
	var sp *transport.SimConn
	if spectate {
		sp = r.peer("s")
		sw, ok := r.spectate(sp, 0)
		if !ok || sw.Player != codec.SpectatorID {
			t.Fatalf("spectator welcome %+v (%v)", sw, ok)
		}
		tag = sw.Tag
		// Spectators do not count against MaxPlayers (1, taken).
		if sw2, ok := r.spectate(r.peer("s2"), 0); !ok || sw2.Player != codec.SpectatorID {
			t.Fatal("a second spectator was not admitted to a full match")
		}
		if _, ok := r.spectate(r.peer("s3"), 0); ok {
			t.Fatal("a third spectator was admitted past MaxSpectators 2")
		}
		b := r.peer("b")
		r.hello(b, codec.Hello{Game: r.fingerprint()})
		r.run(time.Millisecond)
		if refusal(t, b) != codec.ReasonFull {
			t.Fatal("a second player was not refused")
		}
	}
	for tick := uint32(1); tick <= 120; tick++ {
		if tick%10 == 1 {
			in := testgame.Input{DX: int8(tick % 3), Fire: tick%20 == 1, Aim: uint8(tick)}
			p := it.Pack(make([]byte, it.Size()), &in)
			m := codec.ClientInputs{Tag: w.Tag, First: tick + 2, Ack: reliable.Ack{Next: 1}, Count: 1,
				Payload: it.AppendInputs(nil, [][]byte{p})}
			_ = a.Send("sim:server", m.Append(nil))
		}
		if spectate && tick%10 == 5 {
			s := sp
			forged := testgame.Input{DX: 3, DY: -3, Fire: true, Aim: 99}
			p := it.Pack(make([]byte, it.Size()), &forged)
			m := codec.ClientInputs{Tag: tag, First: tick + 2, Ack: reliable.Ack{Next: 1}, Count: 3,
				Payload: it.AppendInputs(nil, [][]byte{p, p, p})}
			_ = s.Send("sim:server", m.Append(nil))
			c := codec.Chat{Tag: tag, Messages: []codec.ChatMessage{{Seq: tick, Kind: codec.ChatText, Text: []byte("hi")}}}
			_ = s.Send("sim:server", c.Append(nil))
			pr := codec.PageRequest{Tag: tag, Tick: tick, Transfer: tick, Whole: true}
			_ = s.Send("sim:server", pr.Append(nil))
			h := codec.Hello{Game: r.fingerprint()} // as a player, from the spectator's address
			_ = s.Send("sim:server", h.Append(nil))
		}
		r.run(time.Second / 60)
	}
	if spectate {
		bye := codec.NewBye(tag, codec.ReasonNone)
		_ = sp.Send("sim:server", bye.Append(nil))
	}
	r.run(100 * time.Millisecond)
	return r.srv.World().Hash(), r.srv.Stats()
}

// TestSpectatorIsReceiveOnly: a spectator that sends inputs, chat, a
// player's hello and world requests changes nothing: the world's hash is
// the one of the same match without it.
func TestSpectatorIsReceiveOnly(t *testing.T) {
	h0, st0 := playScript(t, false)
	h1, st1 := playScript(t, true)
	if st0.Tick != st1.Tick || h0 != h1 {
		t.Fatalf("with a spectator: tick %d hash %016x; without: tick %d hash %016x", st1.Tick, h1, st0.Tick, h0)
	}
	if st1.Spectators != 2 || st1.SpectatorDropped == 0 || st1.Players != 1 {
		t.Fatalf("stats %+v", st1)
	}
	t.Logf("tick %d hash %016x both ways; %d spectator datagrams dropped", st1.Tick, h1, st1.SpectatorDropped)
}

// TestSpectatorGetsEveryTickBeforeBye: at the goodbye, a spectator that
// went silent (the server backs off from it) is sent every tick it was not
// sent, up to the last before its bye.
func TestSpectatorGetsEveryTickBeforeBye(t *testing.T) {
	r := newRig(t, server.Config{})
	r.join(r.peer("a"))
	sp := r.peer("s")
	if _, ok := r.spectate(sp, 0); !ok {
		t.Fatal("no spectator welcome")
	}
	got := map[uint32]bool{}
	bye := false
	take := func() {
		for _, b := range recvAll(sp) {
			switch typ, _, _ := codec.Peek(b); typ {
			case codec.TypeServerTicks:
				if bye {
					t.Fatal("ticks after the bye")
				}
				m, _, err := codec.ParseServerTicks(b, r.srv.Tick())
				if err != nil {
					t.Fatal(err)
				}
				for _, tk := range m.Ticks {
					got[tk.Tick] = true
				}
			case codec.TypeBye:
				bye = true
			}
		}
	}
	for range 100 {
		r.run(10 * time.Millisecond)
		take()
	}
	last := r.srv.Tick()
	if err := r.srv.Shutdown(); err != nil {
		t.Fatal(err)
	}
	r.net.Advance(r.now.Add(time.Millisecond)) // delivers; no tick runs
	take()
	for u := uint32(1); u <= last; u++ {
		if !got[u] {
			t.Fatalf("tick %d of %d never sent before the bye", u, last)
		}
	}
	if !bye {
		t.Fatal("no bye")
	}
}

// TestSpectatorsDefaultLimit: with MaxSpectators unset a match of one
// player (MaxPlayers 1, taken) admits 64 spectators and refuses the 65th.
func TestSpectatorsDefaultLimit(t *testing.T) {
	r := newRig(t, server.Config{MaxPlayers: 1})
	r.join(r.peer("a"))
	for i := range 64 {
		if w, ok := r.spectate(r.peer(fmt.Sprintf("s%d", i)), 0); !ok || w.Player != codec.SpectatorID {
			t.Fatalf("spectator %d not admitted (%+v)", i+1, w)
		}
	}
	last := r.peer("s64")
	r.hello(last, codec.Hello{Game: r.fingerprint(), Spectator: true})
	r.run(time.Millisecond)
	if why := refusal(t, last); why != codec.ReasonFull {
		t.Fatalf("the 65th spectator refused with %v, want full", why)
	}
	if st := r.srv.Stats(); st.Spectators != 64 || st.Players != 1 {
		t.Fatalf("stats: %d spectators, %d players", st.Spectators, st.Players)
	}
}

// TestSpectatorHandoverHasNoKey: in a match with HostMigration a
// spectator is sent the handover data too (the room's code and the tick
// rate: the match goes on elsewhere when this host goes, and it may watch
// it again by the code), without the room's key and the players' cookie
// digests; the players get them. A spectator that comes when the data
// has not changed for a while gets it at once, not a second later.
func TestSpectatorHandoverHasNoKey(t *testing.T) {
	const code, key = "SPEC23", "00112233445566778899aabbccddeeff"
	r := newRig(t, server.Config{HostMigration: true, Room: server.Room{Code: code, Key: key}})
	a := r.peer("a")
	r.join(a)
	r.run(2500 * time.Millisecond) // past the burst of the player's join
	sp := r.peer("s")
	sw, ok := r.spectate(sp, 0)
	if !ok {
		t.Fatal("no spectator welcome")
	}
	ack := codec.ClientInputs{Tag: sw.Tag, First: 1, Ack: reliable.Ack{Next: 1}}
	if err := sp.Send("sim:server", ack.Append(nil)); err != nil {
		t.Fatal(err)
	}
	handovers := func(c *transport.SimConn) []codec.Handover {
		var out []codec.Handover
		for _, b := range recvAll(c) {
			if typ, _, _ := codec.Peek(b); typ == codec.TypeHandover {
				m, _, err := codec.ParseHandover(b)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, m)
			}
		}
		return out
	}
	recvAll(a)
	r.run(50 * time.Millisecond)
	if got := handovers(sp); len(got) != 1 {
		t.Fatalf("%d handovers to the spectator within 50 ms of its welcome, want 1", len(got))
	}
	r.run(1500 * time.Millisecond)
	spec, play := handovers(sp), handovers(a)
	if len(spec) == 0 || len(play) == 0 {
		t.Fatalf("handovers: %d to the spectator, %d to the player", len(spec), len(play))
	}
	for _, m := range spec {
		if m.Tag != sw.Tag || m.Code != code || m.Key != "" || len(m.Players) != 0 || m.HasOwn || m.TickRate == 0 {
			t.Fatalf("the spectator's handover: %+v", m)
		}
	}
	last := play[len(play)-1]
	if last.Key != key || len(last.Players) != 1 {
		t.Fatalf("the player's handover: %+v", last)
	}
}
