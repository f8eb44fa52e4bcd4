package host

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// sentConn is a server-side Conn with nothing to read that keeps what is
// sent.
type sentConn struct {
	nullConn
	sent [][]byte
}

func (c *sentConn) Send(_ transport.Addr, p []byte) error {
	c.sent = append(c.sent, append([]byte(nil), p...))
	return nil
}

// startedRoom opens a room of a Multi over a sentConn and has peer
// join it (startRoom). It returns the room and the player's welcome.
func startedRoom(t *testing.T, opts Options, peer transport.Addr) (*Multi[testgame.Input], *roomMatch[testgame.Input], codec.Welcome) {
	t.Helper()
	conn := &sentConn{nullConn: nullConn{ready: make(chan struct{})}}
	h, err := NewMulti[testgame.Input](&testgame.Game{}, conn, opts)
	if err != nil {
		t.Fatal(err)
	}
	code, err := h.Open("")
	if err != nil {
		t.Fatal(err)
	}
	r := h.rooms[code]
	return h, r, startRoom(t, h, conn, r, peer)
}

// startRoom has peer join room r of h (over conn) through the router, as
// the dispatcher would: its hello and its first inputs (which start the
// match) each run the room at once. It returns once the scheduler took
// the room back, with the player's welcome.
func startRoom(t *testing.T, h *Multi[testgame.Input], conn *sentConn, r *roomMatch[testgame.Input], peer transport.Addr) codec.Welcome {
	t.Helper()
	s := newScheduler(h)
	run := []*roomMatch[testgame.Input]{r}
	conn.sent = conn.sent[:0]
	hm := codec.Hello{Game: r.m.Server.Fingerprint()}
	hm.SetRoom(r.code)
	hello := hm.Append(nil)
	if got, soon := h.route(peer, hello, time.Now()); got != r || !soon {
		t.Fatalf("hello: room %v, soon %v: want the room, at once", got, soon)
	}
	h.runRoom(r, nil)
	s.finished(run, time.Now(), 0)
	var w codec.Welcome
	for _, b := range conn.sent {
		if typ, _, _ := codec.Peek(b); typ == codec.TypeWelcome {
			var err error
			if w, _, err = codec.ParseWelcome(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if w.Tag == 0 {
		t.Fatal("no welcome")
	}
	in := (&codec.ClientInputs{Tag: w.Tag, First: 1, Ack: reliable.Ack{Next: 1}}).Append(nil)
	if _, soon := h.route(peer, in, time.Now()); !soon {
		t.Fatal("inputs before the match started wait: they are what starts it")
	}
	h.runRoom(r, nil)
	s.finished(run, time.Now(), 0)
	if !r.m.Server.Started() {
		t.Fatal("the match did not start")
	}
	return w
}

// TestMultiInputsWaitForTick: once a room's match ticks, a player's
// inputs wait in the room's queue for its next tick (the dispatcher does
// not run the room for them) until the queue is half full; a ping (whose
// pong measures the round trip) and a hello run it at once; with a stall
// policy (an input may let a held tick run) inputs run it at once too.
func TestMultiInputsWaitForTick(t *testing.T) {
	const peer = transport.Addr("udp:127.0.0.1:4000#1")
	h, r, w := startedRoom(t, Options{QueueLen: 8}, peer)
	if !r.lazy.Load() {
		t.Fatal("a ticking room is not lazy")
	}
	in := (&codec.ClientInputs{Tag: w.Tag, First: 2, Ack: reliable.Ack{Next: 1}}).Append(nil)
	for i := 1; i <= 4; i++ {
		_, soon := h.route(peer, in, time.Now())
		if want := 2*i >= 8; soon != want {
			t.Fatalf("input %d of a queue of 8: soon %v, want %v", i, soon, want)
		}
	}
	h.runRoom(r, nil) // empties the queue
	ping := (&codec.Ping{Tag: w.Tag, ID: 1}).Append(nil)
	if _, soon := h.route(peer, ping, time.Now()); !soon {
		t.Fatal("a ping waits for the tick: its pong would carry the wait into the round trip")
	}
	if _, soon := h.route(peer, in, time.Now()); soon {
		t.Fatal("an input after a ping runs the room")
	}
	hello := (&codec.Hello{Game: r.m.Server.Fingerprint()}).Append(nil)
	if _, soon := h.route("udp:127.0.0.1:4001#2", hello, time.Now()); !soon {
		t.Fatal("a hello waits for the tick")
	}

	var opts Options
	opts.Server.Stall = server.Stall{Kind: server.StallAcks}
	h, r, w = startedRoom(t, opts, peer)
	in = (&codec.ClientInputs{Tag: w.Tag, First: 2, Ack: reliable.Ack{Next: 1}}).Append(nil)
	if _, soon := h.route(peer, in, time.Now()); r.lazy.Load() || !soon {
		t.Fatalf("with a stall policy: lazy %v, soon %v; want inputs to run the room at once", r.lazy.Load(), soon)
	}
}

// fakeClock is a Clock that says what t says.
type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time { return c.t }

// TestMultiRunsOnItsClock: a Multi reads the time from Options.Clock, not
// the wall clock: a room's match started at a made-up time ticks from it,
// and a second of that time later has run a second of ticks.
func TestMultiRunsOnItsClock(t *testing.T) {
	const peer = transport.Addr("udp:127.0.0.1:4000#1")
	clock := &fakeClock{t: time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)}
	start := clock.t
	h, r, _ := startedRoom(t, Options{Clock: clock, TickPhases: -1}, peer)
	if next := r.m.Server.NextDeadline(); next.Before(start) || next.After(start.Add(time.Second)) {
		t.Fatalf("next tick due at %v: want within a second of the clock's %v", next, start)
	}
	before := r.m.Server.Stats().Tick
	clock.t = start.Add(time.Second)
	h.runRoom(r, nil)
	if ran := r.m.Server.Stats().Tick - before; ran < 59 || ran > 61 {
		t.Fatalf("a second of the clock ran %d ticks, want 60", ran)
	}
}
