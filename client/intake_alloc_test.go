package client

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// TestTickIntakeDoesNotAllocate: once a match runs, taking a ServerTicks
// datagram (keeping its body in the ring, decoding it and confirming the
// tick) and folding the tick in as Update does allocates nothing: a
// decoded tick's body buffer serves the next.
func TestTickIntakeDoesNotAllocate(t *testing.T) {
	const warm, runs = 50, 100
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, t0)
	srv, _ := net.Listen("server")
	defer srv.Close()
	conn, _ := net.Dial("c", "server")
	defer conn.Close()
	c, err := New[testgame.Input](&testgame.Game{}, conn, Config{})
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	if err := c.Update(now); err != nil { // hello
		t.Fatal(err)
	}
	w := codec.Welcome{Player: 0, Tag: 7, TickRate: 60, HashBits: 16, Roster: make([]byte, 8)}
	_ = srv.Send(conn.LocalAddr(), w.Append(nil))
	now = now.Add(time.Millisecond)
	net.Advance(now)
	if err := c.Update(now); err != nil {
		t.Fatal(err)
	}
	if !c.Playing() {
		t.Fatal("not playing after the welcome")
	}

	// The server's ticks 1.. of a match the client plays alone: its join,
	// then its (zero) input every tick, with the world's hash.
	st, err := NewSyncTest[testgame.Input](&testgame.Game{}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	enc := codec.NewTickEncoder(c.it.Schema, 16)
	if err := enc.Join(0); err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, c.it.Size())
	msgs := make([][]byte, 0, warm+runs+2)
	for tick := uint32(1); tick <= warm+runs+2; tick++ {
		if tick > 1 {
			if err := enc.SetInput(0, zero); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Step(make([]testgame.Input, 1)); err != nil {
			t.Fatal(err)
		}
		m := codec.ServerTicks{Tag: 7, First: tick, Ack: reliable.Ack{Next: 1},
			Ticks: []codec.TickBody{{Tick: tick, Body: enc.AppendTick(nil, st.World().Hash())}}}
		msgs = append(msgs, m.Append(nil))
	}
	next := 0
	take := func() {
		if err := c.onTicks(now, msgs[next]); err != nil {
			t.Fatal(err)
		}
		if err := c.fold(now); err != nil {
			t.Fatal(err)
		}
		next++
	}
	// Intake confirms and Update's fold simulates: taking a datagram
	// steps nothing.
	steps := c.core.steps
	if err := c.onTicks(now, msgs[0]); err != nil {
		t.Fatal(err)
	}
	if c.core.steps != steps || c.core.confThru != 1 || c.core.predicted != 0 {
		t.Fatalf("intake of tick 1: %d steps, confirmed through %d, predicted %d; want no step, 1, 0",
			c.core.steps-steps, c.core.confThru, c.core.predicted)
	}
	if err := c.fold(now); err != nil {
		t.Fatal(err)
	}
	next = 1
	for range warm {
		take()
	}
	if allocs := testing.AllocsPerRun(runs, take); allocs != 0 {
		t.Errorf("%v allocations per tick taken", allocs)
	}
	if s := c.Stats(); s.Verified != uint32(next) || s.Desyncs != 0 {
		t.Fatalf("verified %d of %d ticks sent, %d desyncs: the ticks were not taken", s.Verified, next, s.Desyncs)
	}
}
