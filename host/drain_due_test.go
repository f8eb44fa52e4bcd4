package host

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// newDrainHost is a Multi of 2 workers over a drainConn (a socket that
// waits to be drained), with rooms rooms open and none started.
func newDrainHost(t *testing.T, rooms int) (*Multi[testgame.Input], *drainConn) {
	t.Helper()
	conn := &drainConn{pipeConn: pipeConn{sentConn: sentConn{nullConn: nullConn{ready: make(chan struct{}, 1)}}}}
	h, err := NewMulti[testgame.Input](&testgame.Game{}, conn, Options{Workers: 2, MaxMatches: max(rooms, 1)})
	if err != nil {
		t.Fatal(err)
	}
	for range rooms {
		if _, err := h.Open(""); err != nil {
			t.Fatal(err)
		}
	}
	return h, conn
}

// drainsSince returns the drains conn saw from i on.
func (c *drainConn) drainsSince(i int) []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.drains[i:]...)
}

// sameTimes reports whether a and b hold the same instants in order.
func sameTimes(a, b []time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// sinceEpoch returns ts as durations since h's epoch, for messages.
func sinceEpoch(h *Multi[testgame.Input], ts []time.Time) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, t := range ts {
		out[i] = t.Sub(h.epoch)
	}
	return out
}

// TestSchedulerDrainsDuePhasesOnly: in made-up time, a host of one
// started room (its ticks on one of the default 8 phases) drains its
// socket once a tick, just before the room's tick, not at the 7 phases
// where no room is due: a ping is answered at the room's next tick, not before, within
// a tick of its arrival. After a drain that found the socket busy
// (drainBusy datagrams a quarter tick), the socket is drained every quarter
// tick for a tick; then
// once a tick again.
func TestSchedulerDrainsDuePhasesOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, conn := newDrainHost(t, 0)
		code, err := h.Open("")
		if err != nil {
			t.Fatal(err)
		}
		const peer = transport.Addr("udp:127.0.0.1:4000#1")
		time.Sleep(h.period * 5 / 8) // the room's ticks on a phase other than the epoch's
		tag := startRoom(t, h, &conn.sentConn, h.rooms[code], peer).Tag
		first := h.rooms[code].m.Server.NextDeadline() // the room ticks at first + k·period
		tickAfter := func(at time.Time) time.Time {
			k := (at.Sub(first) + h.period - 1) / h.period
			return first.Add(k * h.period)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel() // a failed test's Run ends too
		done := make(chan error, 1)
		started := time.Now()
		go func() { done <- h.Run(ctx) }()
		for i := range 40 {
			time.Sleep(h.period/13 + time.Duration(i)*time.Microsecond)
			synctest.Wait()
			conn.sentTo(peer, codec.TypePong) // forget what went before
			at := time.Now()
			conn.deliver(peer, (&codec.Ping{Tag: tag, ID: uint32(i + 1)}).Append(nil))
			next := tickAfter(at)
			if next.Sub(at) > h.period {
				t.Fatalf("ping %d: the room's next tick %v after it: want within a tick", i+1, next.Sub(at))
			}
			if d := next.Sub(at); d > 0 {
				time.Sleep(d - 1)
				synctest.Wait()
				if conn.sentTo(peer, codec.TypePong) {
					t.Fatalf("ping %d answered %v before the room's tick: a drain at a phase where no room is due", i+1, d)
				}
				time.Sleep(1)
			}
			synctest.Wait()
			if !conn.sentTo(peer, codec.TypePong) {
				t.Fatalf("ping %d: not answered at the room's next tick, %v after it arrived", i+1, next.Sub(at))
			}
		}
		drains := conn.drainsSince(0)
		ran := time.Since(started)
		for _, d := range drains {
			if !d.Equal(started) && !tickAfter(d).Equal(d) {
				t.Fatalf("a drain at %v, %v before the room's tick: no room was due", d, tickAfter(d).Sub(d))
			}
		}
		if ticks := int(ran / h.period); len(drains) < ticks || len(drains) > ticks+2 {
			t.Errorf("%d drains in %v: want one a tick (%d) and Run's first", len(drains), ran, ticks)
		}

		// A busy socket: drainBusy datagrams of no session a quarter tick
		// waiting at the room's tick (a tick after the last drain). The
		// socket is drained every quarter tick for a tick, then only at the
		// room's ticks; one datagram fewer and only at the room's ticks.
		sent := 0
		for _, busy := range []bool{false, true} {
			time.Sleep(h.period / 3)
			k := drainBusy * 4
			if !busy {
				k--
			}
			for i := range k {
				conn.deliver(transport.Addr(fmt.Sprintf("udp:127.0.0.2:%d#1", 5000+i)), []byte{0xff, 1, 2, 3})
			}
			sent += k
			at := tickAfter(time.Now())
			n := len(conn.drainsSince(0))
			time.Sleep(at.Sub(time.Now()) + 3*h.period)
			synctest.Wait()
			want := []time.Time{at, at.Add(h.period), at.Add(2 * h.period), at.Add(3 * h.period)}
			if busy {
				i := h.phaseIndex(at)
				step := int64(h.phases) / 4 // a busy socket is read every quarter tick
				for p := int64(h.phases) - step; p >= step; p -= step {
					want = slices.Insert(want, 1, h.phaseAt(i+p))
				}
			}
			if got := conn.drainsSince(n); !sameTimes(got, want) {
				t.Errorf("drains around one of %d datagrams at %v:\n got %v\nwant %v", k, at.Sub(h.epoch), sinceEpoch(h, got), sinceEpoch(h, want))
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := h.Stats().Unrouted; got != uint64(sent) {
			t.Errorf("%d datagrams unrouted, want the %d sent", got, sent)
		}
		lag := h.TickLag()
		if n := lag.N(); n == 0 || lag.Counts[0] != n {
			t.Errorf("%d of %d tick updates late; want none", n-lag.Counts[0], n)
		}
		h.Close()
	})
}

// TestSchedulerDrainWaitBounded: in made-up time, a host whose one room
// has no match started (no tick due, only its 250 ms poll) still drains
// its socket at a phase instant at least every drainWait (once a tick at
// 60 Hz, whatever the phases): a hello is answered at the first such drain after
// it arrived, not before.
func TestSchedulerDrainWaitBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, conn := newDrainHost(t, 1)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel() // a failed test's Run ends too
		done := make(chan error, 1)
		started := time.Now()
		go func() { done <- h.Run(ctx) }()
		time.Sleep(h.period*2 + h.period*3/8)
		synctest.Wait()
		tick := int64(h.phases) // phase instants a tick
		want := []time.Time{started, h.phaseAt(tick), h.phaseAt(2 * tick)}
		if got := conn.drainsSince(0); !sameTimes(got, want) {
			t.Fatalf("drains with no room due:\n got %v\nwant %v (one a tick, on a phase)", sinceEpoch(h, got), sinceEpoch(h, want))
		}
		const peer = transport.Addr("udp:127.0.0.1:4000#1")
		conn.deliver(peer, (&codec.Hello{Game: h.order[0].m.Server.Fingerprint()}).Append(nil))
		next := h.phaseAt(3 * tick)
		if d := next.Sub(time.Now()); d <= 0 || d > drainWait {
			t.Fatalf("the next drain %v away: want within drainWait", d)
		}
		time.Sleep(next.Sub(time.Now()) - 1)
		synctest.Wait()
		if conn.sentTo(peer, codec.TypeWelcome) {
			t.Fatal("the hello was answered before the next drain")
		}
		time.Sleep(1)
		synctest.Wait()
		if !conn.sentTo(peer, codec.TypeWelcome) {
			t.Fatalf("the hello was not answered at the drain %v after it arrived", h.period*5/8)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		h.Close()
	})
}
