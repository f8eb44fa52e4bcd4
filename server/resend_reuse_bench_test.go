package server_test

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// BenchmarkJoinLeave measures what a player joining a running match (its
// hello, welcome and world transfer) and leaving (its bye) costs the
// server, beside a player that stays: B/op and allocs/op are per join
// and leave (docs/benchmarks.md, Match: join/leave).
func BenchmarkJoinLeave(b *testing.B) {
	net := transport.NewSimNetwork(1, t0)
	conn, err := net.Listen("server")
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	srv, err := server.New[testgame.Input](&testgame.Game{}, conn, server.Config{})
	if err != nil {
		b.Fatal(err)
	}
	now := t0
	run := func(d time.Duration) {
		for end := now.Add(d); now.Before(end); {
			now = now.Add(time.Millisecond)
			net.Advance(now)
			if err := srv.Update(now); err != nil {
				b.Fatal(err)
			}
		}
	}
	buf := make([]byte, 2000)
	// welcome says hello as c and answers the welcome (an ack), draining
	// what the server sent; it returns the player's tag.
	welcome := func(c *transport.SimConn) uint8 {
		h := codec.Hello{Game: srv.Fingerprint()}
		c.Send("sim:server", h.Append(nil))
		run(time.Millisecond)
		var tag uint8
		for {
			n, _, err := c.Recv(buf)
			if err != nil {
				break
			}
			if typ, _, _ := codec.Peek(buf[:n]); typ == codec.TypeWelcome {
				w, _, err := codec.ParseWelcome(buf[:n])
				if err != nil {
					b.Fatal(err)
				}
				tag = w.Tag
			}
		}
		if tag == 0 {
			b.Fatal("no welcome")
		}
		return tag
	}
	stay, churn := mustDial(b, net, "stay"), mustDial(b, net, "churn")
	stayTag := welcome(stay)
	keep := func() {
		m := codec.ClientInputs{Tag: stayTag, First: srv.Tick() + 1, Ack: reliable.Ack{Next: srv.Tick() + 1}}
		stay.Send("sim:server", m.Append(nil))
		for _, _, err := stay.Recv(buf); err == nil; _, _, err = stay.Recv(buf) {
		}
	}
	keep()
	run(50 * time.Millisecond)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		tag := welcome(churn)
		run(20 * time.Millisecond)
		bye := codec.Bye{Tag: tag}
		churn.Send("sim:server", bye.Append(nil))
		keep()
		run(40 * time.Millisecond) // the leave's tick, and the next
		for _, _, err := churn.Recv(buf); err == nil; _, _, err = churn.Recv(buf) {
		}
	}
	b.StopTimer()
	if st := srv.Stats(); st.Joins < uint64(b.N) || st.Leaves < uint64(b.N) || st.Players != 1 {
		b.Fatalf("%d joins, %d leaves, %d players after %d rounds", st.Joins, st.Leaves, st.Players, b.N)
	}
}

func mustDial(b *testing.B, net *transport.SimNetwork, name string) *transport.SimConn {
	c, err := net.Dial(name, "server")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}
