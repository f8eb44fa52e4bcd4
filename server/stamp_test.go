package server_test

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// stampConn is a server's SimConn that says every datagram arrived at at
// (transport.Stamped), as a host.Multi's room queue does for the datagrams
// that waited there.
type stampConn struct {
	*transport.SimConn
	at time.Time
}

func (c *stampConn) RecvStamped(p []byte) (int, transport.Addr, time.Time, error) {
	n, from, err := c.SimConn.Recv(p)
	return n, from, c.at, err
}

// TestStampedInputMargin: an input that waited between its arrival and
// the Update that handles it (in a host.Multi, until its room's tick) is
// measured as of its arrival when the Conn says when that was
// (transport.Stamped): the margin the player is told is the network's,
// not the wait's. A stamp before the previous Update counts as that
// Update's time (the datagram was not waiting yet then), and without a
// stamp the margin is as of the Update.
func TestStampedInputMargin(t *testing.T) {
	for _, tc := range []struct {
		name string
		// stamp returns the arrival the Conn tells, from when the input
		// was delivered (sent) and the previous Update's time (prev).
		stamp func(sent, prev time.Time) time.Time
		// want returns where the margin is measured from.
		want func(sent, prev, handled time.Time) time.Time
	}{
		{"stamped", func(sent, _ time.Time) time.Time { return sent },
			func(sent, _, _ time.Time) time.Time { return sent }},
		{"before-prev", func(_, prev time.Time) time.Time { return prev.Add(-time.Second) },
			func(_, prev, _ time.Time) time.Time { return prev }},
		{"unstamped", func(time.Time, time.Time) time.Time { return time.Time{} },
			func(_, _, handled time.Time) time.Time { return handled }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			margin, want := stampedMargin(t, tc.stamp, tc.want)
			if margin != want {
				t.Fatalf("margin %d ms, want %d ms", margin, want)
			}
		})
	}
}

// stampedMargin runs a match of one player who sends one input for 3
// ticks ahead 2 ms after a tick ran; the server handles it 10 ms later
// (no Update meanwhile), with the arrival stamp(sent, prev) says. It
// returns the margin the player is then told, and the one want expects.
func stampedMargin(t *testing.T, stamp func(sent, prev time.Time) time.Time,
	want func(sent, prev, handled time.Time) time.Time) (got, exp int32) {
	t.Helper()
	net := transport.NewSimNetwork(1, t0)
	sc, err := net.Listen("server")
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	conn := &stampConn{SimConn: sc}
	srv, err := server.New[testgame.Input](&testgame.Game{}, conn, server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, net: net, srv: srv, now: t0}
	a := r.peer("a")
	w := r.join(a)
	r.run(100 * time.Millisecond)
	for srv.NextDeadline().Sub(r.now) < 15*time.Millisecond { // just after a tick ran
		r.run(time.Millisecond)
	}
	recvAll(a)
	prev := r.now // the last Update
	sent := prev.Add(2 * time.Millisecond)
	u := srv.Tick() + 4 // 3 ticks after the next
	due := srv.NextDeadline().Add(3 * time.Second / time.Duration(srv.TickRate()))
	it, err := inputs.NewType[testgame.Input]()
	if err != nil {
		t.Fatal(err)
	}
	in := testgame.Input{DX: 1}
	m := codec.ClientInputs{Tag: w.Tag, First: u, Ack: reliable.Ack{Next: 1}, Count: 1,
		Payload: it.AppendInputs(nil, [][]byte{it.Pack(make([]byte, it.Size()), &in)})}
	if err := a.Send("sim:server", m.Append(nil)); err != nil {
		t.Fatal(err)
	}
	net.Advance(sent)
	conn.at = stamp(sent, prev)
	handled := prev.Add(12 * time.Millisecond) // before the next tick is due
	r.now = handled
	if err := srv.Update(handled); err != nil {
		t.Fatal(err)
	}
	if srv.Tick() != u-4 {
		t.Fatalf("tick %d ran before the input was handled", srv.Tick())
	}
	exp = int32(due.Sub(want(sent, prev, handled)) / time.Millisecond)
	for range 200 {
		r.run(time.Millisecond)
		for _, b := range recvAll(a) {
			if typ, _, _ := codec.Peek(b); typ != codec.TypeServerTicks {
				continue
			}
			st, _, err := codec.ParseServerTicks(b, 0)
			if err != nil {
				t.Fatal(err)
			}
			if st.HasMargin {
				return st.Margin, exp
			}
		}
	}
	t.Fatal("no margin sent")
	return 0, 0
}

// TestStampedPongHold: a ping that waited between its arrival and the
// Update that answers it (a drained socket's datagrams wait for their
// room's tick phase) is answered with its send time moved later by the
// wait, so the player's round trip leaves the wait out; unstamped, the
// pong echoes the ping's time as it came.
func TestStampedPongHold(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stamped bool
		want    time.Duration
	}{{"stamped", true, 7 * time.Millisecond}, {"unstamped", false, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			net := transport.NewSimNetwork(1, t0)
			sc, err := net.Listen("server")
			if err != nil {
				t.Fatal(err)
			}
			defer sc.Close()
			conn := &stampConn{SimConn: sc}
			srv, err := server.New[testgame.Input](&testgame.Game{}, conn, server.Config{})
			if err != nil {
				t.Fatal(err)
			}
			r := &rig{t: t, net: net, srv: srv, now: t0}
			a := r.peer("a")
			w := r.join(a)
			r.run(50 * time.Millisecond)
			recvAll(a)
			const sentAt = 123456789
			ping := codec.Ping{Tag: w.Tag, ID: 9, Time: sentAt}
			if err := a.Send("sim:server", ping.Append(nil)); err != nil {
				t.Fatal(err)
			}
			arrived := r.now.Add(time.Millisecond)
			net.Advance(arrived)
			if tc.stamped {
				conn.at = arrived
			}
			r.now = arrived.Add(7 * time.Millisecond)
			if err := srv.Update(r.now); err != nil {
				t.Fatal(err)
			}
			net.Advance(r.now)
			for _, b := range recvAll(a) {
				if typ, _, _ := codec.Peek(b); typ != codec.TypePong {
					continue
				}
				p, _, err := codec.ParsePong(b)
				if err != nil {
					t.Fatal(err)
				}
				if p.ID != 9 || time.Duration(p.Time-sentAt) != tc.want {
					t.Fatalf("pong %+v: time moved by %v, want %v", p, time.Duration(p.Time-sentAt), tc.want)
				}
				return
			}
			t.Fatal("no pong")
		})
	}
}
