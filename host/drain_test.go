package host

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// drainConn is a pipeConn whose datagrams wait until the host drains
// them (a transport.Drainer, as a udp.Server with Config.Drained): they
// go to the handler only in Drain, which notes when it ran.
type drainConn struct {
	pipeConn
	hmu     sync.Mutex
	handler transport.Handler
	drains  []time.Time
}

func (c *drainConn) SetHandler(h transport.Handler) {
	c.hmu.Lock()
	c.handler = h
	c.hmu.Unlock()
}

func (c *drainConn) Draining() bool { return true }

func (c *drainConn) Drain() int {
	c.hmu.Lock()
	defer c.hmu.Unlock()
	c.mu.Lock()
	in := c.in
	c.in = nil
	c.drains = append(c.drains, time.Now())
	c.mu.Unlock()
	for _, d := range in {
		c.handler(d.addr, d.p, time.Now())
	}
	return len(in)
}

// Recv implements transport.Conn: nothing is queued (the handler takes
// every datagram).
func (c *drainConn) Recv([]byte) (int, transport.Addr, error) { return 0, "", transport.ErrWouldBlock }

// TestSchedulerDrainsAtPhases: in made-up time, 24 started rooms tick at
// 4 phases on 2 workers over a socket that waits to be
// drained (transport.Drainer). Every drain but Run's first falls on a
// phase instant, at most one per instant (so no worker wakes between phases for the
// socket); a ping that arrives between phases is answered at the next
// phase and not before; every tick still runs exactly at its deadline.
func TestSchedulerDrainsAtPhases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const rooms = 24
		conn := &drainConn{pipeConn: pipeConn{sentConn: sentConn{nullConn: nullConn{ready: make(chan struct{}, 1)}}}}
		h, err := NewMulti[testgame.Input](&testgame.Game{}, conn, Options{Workers: 2, MaxMatches: rooms, TickPhases: 4})
		if err != nil {
			t.Fatal(err)
		}
		if h.drainer == nil {
			t.Fatal("the Multi does not drain a Drainer")
		}
		peers := make([]transport.Addr, rooms)
		tags := make([]uint8, rooms)
		for i := range rooms {
			code, err := h.Open("")
			if err != nil {
				t.Fatal(err)
			}
			peers[i] = transport.Addr(fmt.Sprintf("udp:127.0.0.1:%d#1", 4000+i))
			tags[i] = startRoom(t, h, &conn.sentConn, h.rooms[code], peers[i]).Tag
			time.Sleep(h.period / 7)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		started := time.Now()
		go func() { done <- h.Run(ctx) }()
		for i := range 60 {
			time.Sleep(h.period / 13)
			synctest.Wait()
			k := i * 7 % rooms
			conn.sentTo(peers[k], codec.TypePong) // forget what went before
			at := time.Now()
			conn.deliver(peers[k], (&codec.Ping{Tag: tags[k], ID: uint32(i + 1)}).Append(nil))
			next := h.phaseAfter(at)
			if prev := h.phaseAfter(at.Add(-1)); prev.Equal(at) {
				next = at // it arrived at a phase instant: drained now
			}
			if d := next.Sub(at); d > 0 {
				time.Sleep(d - 1)
				synctest.Wait()
				if conn.sentTo(peers[k], codec.TypePong) {
					t.Fatalf("ping %d, %v before a phase: answered before the phase (a worker woke for it)", i+1, d)
				}
				time.Sleep(1)
			}
			synctest.Wait()
			if !conn.sentTo(peers[k], codec.TypePong) {
				t.Fatalf("ping %d: not answered at the next phase, %v after it arrived", i+1, next.Sub(at))
			}
		}
		ran := time.Since(started)
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		lag := h.TickLag()
		if n := lag.N(); n == 0 || lag.Counts[0] != n {
			t.Errorf("%d of %d tick updates late; want none", n-lag.Counts[0], n)
		}
		seen := map[time.Time]bool{}
		for _, d := range conn.drains {
			if d.Equal(started) {
				continue // Run drains as it starts
			}
			if !h.phaseAfter(d.Add(-1)).Equal(d) {
				t.Fatalf("a drain at %v, %v into a tick: not at a phase instant", d, d.Sub(h.epoch)%h.period)
			}
			if seen[d] {
				t.Fatalf("two drains at %v", d)
			}
			seen[d] = true
		}
		if phases := int(ran / (h.period / 4)); len(conn.drains) < phases || len(conn.drains) > phases+2 {
			t.Errorf("%d drains in %v: want one at each of the %d phases, and Run's first", len(conn.drains), ran, phases)
		}
		h.Close()
	})
}
