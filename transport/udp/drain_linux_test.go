//go:build linux

package udp

import (
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// TestUDPDrained: a drained server (Config.Drained) opens sessions with
// nobody draining it (its backstop does), reads a datagram only when
// drained, hands it over with the time it arrived (the kernel's stamp,
// not the drain's), and keeps a peer's datagrams in order.
func TestUDPDrained(t *testing.T) {
	s := udpListenTest(t, Config{Drained: true})
	if !s.Draining() {
		t.Fatal("Draining() false with Config.Drained")
	}
	c := udpDialTest(t, s, Config{}) // the handshake: answered by the backstop
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

	s.Drain() // the backstop waits 100 ms from here
	before := time.Now()
	if err := c.Send(c.RemoteAddr(), []byte("one")); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	time.Sleep(20 * time.Millisecond)
	for deadline := time.Now().Add(10 * time.Second); count() == 0; {
		s.Drain()
		if time.Now().After(deadline) {
			t.Fatal("nothing handed over")
		}
	}
	mu.Lock()
	g := handed[0]
	mu.Unlock()
	slack := 5 * time.Millisecond // two clock reads apart, on a loaded machine
	if g.p != "one" || g.at.Before(before.Add(-slack)) || g.at.After(after.Add(slack)) {
		t.Fatalf("handed %q at %v; want \"one\" stamped between %v and %v (its arrival)", g.p, g.at, before, after)
	}
	if g.taken.Sub(g.at) < 15*time.Millisecond {
		t.Errorf("handed %v after it arrived; want ≥ 20 ms (read at the drain, not as it arrived)", g.taken.Sub(g.at))
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
