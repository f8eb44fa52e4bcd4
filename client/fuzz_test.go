package client_test

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// FuzzClientDatagram plays the server by hand: it welcomes a client, sends
// it a valid tick, then an arbitrary datagram. The client must not panic;
// a bad datagram is counted (or ends the session with an error) and never
// changes the verified tick's world.
func FuzzClientDatagram(f *testing.F) {
	body := tickBody(f)
	for _, m := range []interface{ Append([]byte) []byte }{
		&codec.ServerTicks{Tag: 7, First: 2, Ack: reliable.Ack{Next: 1}, Ticks: []codec.TickBody{{Tick: 2, Body: []byte{0, 0, 0}}}},
		&codec.ServerTicks{Tag: 7, First: 1, Ack: reliable.Ack{Next: 1}, HasMargin: true, Margin: -40, Ticks: []codec.TickBody{{Tick: 1, Body: body}}},
		&codec.Pong{Tag: 7, ID: 1, Time: 5},
		&codec.Ping{Tag: 7, ID: 1, Time: 5},
		&codec.Bye{Tag: 7, Reason: codec.ReasonKicked},
		&codec.Bye{Tag: 7, Reason: codec.ReasonShutdown, Detail: codec.ReasonMigrate},
		&codec.Handover{Tag: 7, Version: 3, TickRate: 60, Code: "ABC234", Players: []codec.HandoverPlayer{{ID: 0, Digests: make([][8]byte, 1)}}},
		&codec.Refuse{Reason: codec.ReasonFull},
		&codec.Welcome{Player: 3, Tag: 9, TickRate: 60, Roster: make([]byte, 8)},
		&codec.Waiting{Tag: 7, Tick: 2, Players: 1},
		&codec.Chat{Tag: 7, Ack: reliable.Ack{Next: 1}, Messages: []codec.ChatMessage{{Seq: 1, From: 2, Kind: codec.ChatName, Text: []byte("bob")}, {Seq: 2, From: 255, Kind: codec.ChatEnd, Text: []byte("w=2")}}},
	} {
		f.Add(m.Append(nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1200 {
			return
		}
		c, send, step := helloClient(t, &testgame.Game{})
		w := codec.Welcome{Player: 0, Tag: 7, TickRate: 60, HashBits: 16, Roster: make([]byte, 8)}
		send(w.Append(nil))
		first := codec.ServerTicks{Tag: 7, First: 1, Ack: reliable.Ack{Next: 1}, Ticks: []codec.TickBody{{Tick: 1, Body: body}}}
		send(first.Append(nil))
		if err := step(); err != nil {
			t.Fatal(err)
		}
		before := c.Stats()
		if before.Verified != 1 {
			t.Fatalf("verified %d after the first tick", before.Verified)
		}
		send(b)
		for range 20 {
			if step() != nil {
				break // refused, kicked: an error, not a panic
			}
		}
		after := c.Stats()
		if after.Verified == 1 && after.VerifiedHash != before.VerifiedHash {
			t.Fatal("a datagram changed the verified world without a tick")
		}
	})
}

// helloClient makes a client of g on a simulated network of its own and
// has it say hello. It returns the client, send, which sends the client a
// datagram from the server, and step, which advances the network a
// millisecond and updates the client.
func helloClient(t *testing.T, g *testgame.Game) (c *client.Client[testgame.Input], send func([]byte), step func() error) {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, t0)
	srv, _ := net.Listen("server")
	t.Cleanup(func() { srv.Close() })
	conn, _ := net.Dial("c", "server")
	t.Cleanup(func() { conn.Close() })
	c, err := client.New[testgame.Input](g, conn, client.Config{})
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	step = func() error {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		return c.Update(now)
	}
	if err := step(); err != nil { // hello
		t.Fatal(err)
	}
	return c, func(b []byte) { _ = srv.Send(conn.LocalAddr(), b) }, step
}

// tickBody is the body of tick 1 of a match the client joined alone: its
// join and the hash of the world after it.
func tickBody(f testing.TB) []byte {
	st, err := client.NewSyncTest[testgame.Input](&testgame.Game{}, 1, 1)
	if err != nil {
		f.Fatal(err)
	}
	if err := st.Step(make([]testgame.Input, 1)); err != nil {
		f.Fatal(err)
	}
	it, _ := inputs.NewType[testgame.Input]()
	enc := codec.NewTickEncoder(it.Schema, 16)
	if err := enc.Join(0); err != nil {
		f.Fatal(err)
	}
	return enc.AppendTick(nil, st.World().Hash())
}

// FuzzClientWorldLoad welcomes a client into a running match (tick 5), so
// that it waits for the world, then sends it a valid first piece of that
// world and an arbitrary datagram (a chunk, page hashes, anything). The
// client must not panic nor allocate past what its world's layout bounds;
// a world that does not hash as the server's is never taken.
func FuzzClientWorldLoad(f *testing.F) {
	g := &testgame.Game{Bytes: 8 << 10}
	st, err := client.NewSyncTest[testgame.Input](g, 1, 1)
	if err != nil {
		f.Fatal(err)
	}
	var base world.Snapshot
	st.World().SnapshotInto(&base)
	for range 5 {
		if err := st.Step(make([]testgame.Input, 1)); err != nil {
			f.Fatal(err)
		}
	}
	target := st.World().Hash()
	delta, err := st.World().AppendDelta(nil, &base)
	if err != nil {
		f.Fatal(err)
	}
	half := len(delta) / 2
	chunk := func(i uint32, data []byte, off int) *codec.WorldChunk {
		return &codec.WorldChunk{Tag: 7, Transfer: 1 << 16, Tick: 5, Index: i, Count: 2, Offset: uint32(off), Total: uint32(len(delta)), Data: data}
	}
	hashes := st.World().PageHashes(nil)
	for _, m := range []interface{ Append([]byte) []byte }{
		chunk(1, delta[half:], half),
		chunk(0, delta[:half], 0),
		&codec.PageHashes{Tag: 7, Tick: 5, Total: uint32(len(hashes)), Hashes: hashes},
		&codec.WorldChunk{Tag: 7, Transfer: 1 << 16, Tick: 5, Count: 1, Total: 1 << 27, Data: []byte{1}},
	} {
		f.Add(m.Append(nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1200 {
			return
		}
		c, send, step := helloClient(t, &testgame.Game{Bytes: 8 << 10})
		w := codec.Welcome{Player: 0, Tag: 7, Tick: 5, Transfer: 1 << 16, TickRate: 60, HashBits: 16, Roster: make([]byte, 8)}
		send(w.Append(nil))
		send(chunk(0, delta[:half], 0).Append(nil))
		send(b)
		for range 20 {
			if step() != nil {
				break
			}
		}
		if s := c.Stats(); c.Playing() && s.Verified == 5 && s.VerifiedHash != target {
			t.Fatalf("took a world of hash %x, the server's is %x", s.VerifiedHash, target)
		}
	})
}
