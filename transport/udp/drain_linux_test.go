//go:build linux

package udp

import (
	"encoding/binary"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// TestUDPDrained: a drained server (Config.Drained) opens sessions with
// nobody draining it (its backstop does), reads a datagram only when
// drained, hands it over with the time it arrived (the kernel's stamp,
// not the drain's), and keeps a peer's datagrams in order.
//
// The server's clock follows the wall clock through the handshake, then
// stands still: the backstop, which drains only once its clock says 100
// ms passed since the last drain, then never does, so no race between
// the test's Send and a backstop decides what it sees (with the wall
// clock, a Send more than 100 ms late on a loaded machine was read by
// the backstop as it arrived). The bounds on the arrival stamp are
// exact: the datagram waited at least the test's 20 ms sleep, and at
// most from before its Send to the handler's call.
func TestUDPDrained(t *testing.T) {
	clk := &stoppableClock{}
	s := udpListenTest(t, Config{Drained: true, Clock: clk})
	if !s.Draining() {
		t.Fatal("Draining() false with Config.Drained")
	}
	c := udpDialTest(t, s, Config{}) // the handshake: answered by the backstop
	stopped := clk.stop()
	for s.drain.last.Load() != stopped.UnixNano() { // a drain since the clock stopped: the backstop's since stays 0
		s.Drain()
		runtime.Gosched()
	}
	s.drain.mu.Lock() // and a drain under way (the backstop's) finished
	s.drain.mu.Unlock()
	type got struct {
		p         string
		at, taken time.Time
	}
	var mu sync.Mutex // the handler runs on Drain's caller, or on the backstop's goroutine
	var handed []got
	s.SetHandler(func(_ transport.Addr, p []byte, at time.Time) {
		mu.Lock()
		handed = append(handed, got{string(p), at, time.Now()})
		mu.Unlock()
	})
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(handed)
	}

	const wait = 20 * time.Millisecond
	before := time.Now()
	if err := c.Send(c.RemoteAddr(), []byte("one")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait)
	if n := count(); n != 0 {
		t.Fatalf("%d datagrams handed over with nobody draining", n)
	}
	for deadline := time.Now().Add(10 * time.Second); count() == 0; {
		s.Drain()
		if time.Now().After(deadline) {
			t.Fatal("nothing handed over")
		}
	}
	mu.Lock()
	g := handed[0]
	mu.Unlock()
	waited := stopped.Sub(g.at)    // the stopped clock's now less the arrival
	const slack = time.Millisecond // the wall clock's reading against the monotonic one
	if g.p != "one" || waited < wait-slack || waited > g.taken.Sub(before)+slack {
		t.Fatalf("handed %q having waited %v; want \"one\", between %v (the sleep) and %v (its Send to its handling)", g.p, waited, wait, g.taken.Sub(before))
	}

	// Order: 200 datagrams of one peer, read in a few drains.
	var order []uint32
	s.SetHandler(func(_ transport.Addr, p []byte, _ time.Time) {
		mu.Lock()
		order = append(order, binary.BigEndian.Uint32(p))
		mu.Unlock()
	})
	for i := range uint32(200) {
		if err := c.Send(c.RemoteAddr(), binary.BigEndian.AppendUint32(nil, i)); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			s.Drain()
		}
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		s.Drain()
		mu.Lock()
		n := len(order)
		mu.Unlock()
		if n >= 200 {
			break
		}
	}
	s.SetHandler(nil) // waits for a handler running

	for i, v := range order {
		if v != uint32(i) {
			t.Fatalf("datagram %d was %d: out of order (%v)", i, v, order[:i+1])
		}
	}
	if len(order) != 200 {
		t.Fatalf("%d of 200 handed over", len(order))
	}
}

// TestUDPDrainAllocs: draining bogus datagrams (random bytes, from one
// address) allocates nothing per datagram, as the reader does not
// (TestUDPBogusAllocs).
func TestUDPDrainAllocs(t *testing.T) {
	s := udpListenTest(t, Config{Drained: true})
	raw := udpRawSocket(t, s)
	junk := make([]byte, 300)
	for i := range junk {
		junk[i] = byte(i * 7)
	}
	send := func() {
		for range 16 {
			raw.Write(junk)
		}
	}
	send()
	for deadline := time.Now().Add(10 * time.Second); s.Stats().Malformed < 16 && time.Now().Before(deadline); {
		s.Drain() // the first drain grows nothing afterwards
	}
	allocs := testing.AllocsPerRun(50, func() {
		send()
		s.Drain()
	})
	if allocs > 0.5 {
		t.Errorf("%.2f allocations per drain of 16 bogus datagrams; want 0", allocs)
	}
	if got := s.Stats().Malformed; got < 16*40 { // most of them read by the drains (the backstop may take some)
		t.Errorf("%d malformed datagrams counted; want about %d", got, 16*51)
	}
}

// stoppableClock is the wall clock until stop, then the instant stop
// returned.
type stoppableClock struct{ stopped atomic.Int64 }

// Now is time.Now, or the stopped instant.
func (c *stoppableClock) Now() time.Time {
	if ns := c.stopped.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Now()
}

// stop makes the clock stand still at now, and returns it.
func (c *stoppableClock) stop() time.Time {
	now := time.Unix(0, time.Now().UnixNano())
	c.stopped.Store(now.UnixNano())
	return now
}
