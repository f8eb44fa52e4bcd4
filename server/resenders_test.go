package server

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// TestResendersReused: a player joins a running match (a world transfer),
// acknowledges its ticks and its transfer (a round-trip estimate, numbers
// acknowledged), and leaves; the next player to join gets the same two
// Resenders, and they carry nothing of their last owner: the initial
// round trip, its ticks from its welcome on, its transfer from chunk 0
// with nothing acknowledged.
func TestResendersReused(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, t0)
	net.SetDefaultLink(transport.LinkConfig{Latency: 15 * time.Millisecond})
	conn, err := net.Listen("server")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := New[testgame.Input](&testgame.Game{}, conn, Config{})
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	buf := make([]byte, 2000)
	type peer struct {
		c *transport.SimConn
		w codec.Welcome
	}
	var peers []*peer
	// step runs 1 ms; every 5 ms each peer acknowledges every tick and
	// chunk the server sent it so far (as a client that got them would).
	step := func() {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		for _, p := range peers {
			for {
				n, _, err := p.c.Recv(buf)
				if err != nil {
					break
				}
				if typ, _, _ := codec.Peek(buf[:n]); typ == codec.TypeWelcome && p.w.Tag == 0 {
					if p.w, _, err = codec.ParseWelcome(buf[:n]); err != nil {
						t.Fatal(err)
					}
				}
			}
			if p.w.Tag == 0 || now.Sub(t0)%(5*time.Millisecond) != 0 {
				continue
			}
			m := codec.ClientInputs{Tag: p.w.Tag, First: s.Tick() + 1, Ack: reliable.Ack{Next: s.Tick() + 1}}
			p.c.Send("sim:server", m.Append(nil))
			wa := codec.WorldAck{Tag: p.w.Tag, Transfer: p.w.Transfer, Ack: reliable.Ack{Next: 1 << 20}}
			p.c.Send("sim:server", wa.Append(nil))
		}
		if err := s.Update(now); err != nil {
			t.Fatal(err)
		}
	}
	run := func(d time.Duration) {
		for end := now.Add(d); now.Before(end); {
			step()
		}
	}
	join := func(name string) *peer {
		c, err := net.Dial(name, "server")
		if err != nil {
			t.Fatal(err)
		}
		h := codec.Hello{Game: s.Fingerprint()}
		c.Send("sim:server", h.Append(nil))
		p := &peer{c: c}
		peers = append(peers, p)
		for end := now.Add(time.Second); p.w.Tag == 0 && now.Before(end); {
			step()
		}
		if p.w.Tag == 0 {
			t.Fatalf("%s: no welcome", name)
		}
		return p
	}
	join("stay")
	run(200 * time.Millisecond)
	a := join("a")
	run(300 * time.Millisecond)
	pa := s.players[a.w.Player]
	if pa == nil || pa.xres == nil || pa.xfer != nil || pa.xres.Base() == 0 || pa.res.RTT() == reliable.DefaultResendConfig.InitialRTT {
		t.Fatalf("player a: %+v (its transfer acknowledged, a round trip measured)", pa)
	}
	ra, xa := pa.res, pa.xres
	bye := codec.Bye{Tag: a.w.Tag}
	a.c.Send("sim:server", bye.Append(nil))
	peers = peers[:1]
	run(50 * time.Millisecond)
	if s.players[a.w.Player] != nil || len(s.spares) != 2 {
		t.Fatalf("after a left: player %v, %d spare resenders", s.players[a.w.Player], len(s.spares))
	}
	b := join("b")
	pb := s.players[b.w.Player]
	if pb == nil || !(pb.res == ra && pb.xres == xa || pb.res == xa && pb.xres == ra) {
		t.Fatalf("player b's resenders are not a's: %p %p, a's %p %p", pb.res, pb.xres, ra, xa)
	}
	if len(s.spares) != 0 {
		t.Errorf("%d spares left", len(s.spares))
	}
	if r := pb.res; r.RTT() != reliable.DefaultResendConfig.InitialRTT || r.Base() != b.w.Tick+1 {
		t.Errorf("b's ticks: rtt %v, base %d; want the initial %v and its welcome's next tick %d",
			r.RTT(), r.Base(), reliable.DefaultResendConfig.InitialRTT, b.w.Tick+1)
	}
	if x := pb.xres; pb.xfer == nil || pb.xfer.res != x || x.Base() != 0 || x.Acked(0) || x.Next() == 0 {
		t.Errorf("b's transfer: base %d, next %d, chunk 0 acked %v; want a fresh transfer, chunk 0 sent and not acknowledged",
			x.Base(), x.Next(), x.Acked(0))
	}
	run(300 * time.Millisecond)
	if pb.xfer != nil || pb.res.Base() <= b.w.Tick+1 {
		t.Errorf("b's transfer or ticks not acknowledged: transfer %v, ticks from %d", pb.xfer, pb.res.Base())
	}
}
