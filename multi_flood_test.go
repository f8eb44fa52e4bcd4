package rewind_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/testgame"
	"github.com/rewindnet/rewind/internal/testutil"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// TestMultiHostFlood plays a match of two in a room of a MultiHost while
// one address sends thousands of bogus datagrams and 20 sessions that
// completed the UDP handshake send the router what it must drop: a first
// datagram that is not a hello, and hellos for a room nobody has. The two
// players agree at tick 120; every bogus datagram shows in a counter with
// its reason (the socket's malformed and unknown-connection counts, the
// router's unrouted and no-room counts), and the router keeps no route for
// any of them.
func TestMultiHostFlood(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h, err := rewind.HostUDPMulti[testgame.Input](&testgame.Game{}, "127.0.0.1:0", rewind.MultiHostOptions{
		HostOptions: rewind.HostOptions{Server: server.Config{StartPlayers: 2}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	code, err := h.Open("")
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := h.UDPAddr()
	stop := testutil.RunHost(ctx, t, h)
	defer stop()

	var wg sync.WaitGroup
	flood, fcancel := context.WithCancel(ctx)
	defer fcancel()
	const bogus = 5000
	wg.Go(func() { // garbage from one address
		c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(addr))
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		b := make([]byte, 64)
		for i := range bogus {
			rand.Read(b)
			b[0] = byte(i) // every frame type, valid or not
			c.Write(b[:16+i%48])
			if i%100 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	})
	const sessions = 20
	wg.Go(func() { // sessions that speak UDP but not the match
		hello := (&codec.Hello{Game: 1, HasRoom: true, Room: [6]byte{'Z', 'Z', 'Z', 'Z', 'Z', 'Z'}}).Append(nil)
		for i := range sessions {
			c, err := transport.DialUDPContext(flood, addr.String(), transport.UDPConfig{})
			if err != nil {
				t.Error(err)
				return
			}
			// Each datagram goes three times: the kernel may drop one
			// with the server's socket buffer full of the flood (seen
			// under -race), and the router counts every copy (it keeps
			// no route for them).
			for range 3 {
				c.Send(c.RemoteAddr(), []byte(fmt.Sprintf("not a hello %d", i)))
			}
			c2, err := transport.DialUDPContext(flood, addr.String(), transport.UDPConfig{})
			if err != nil {
				c.Close()
				t.Error(err)
				return
			}
			for range 3 {
				c2.Send(c2.RemoteAddr(), hello)
			}
			time.Sleep(5 * time.Millisecond)
			c.Close()
			c2.Close()
		}
	})
	hashes := make([]uint64, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() { hashes[i], errs[i] = playRoom(ctx, addr.String(), code, 3, 120) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if hashes[0] != hashes[1] {
		t.Errorf("tick 120: hashes %x differ", hashes)
	}
	// Under the flood the kernel drops datagrams from the server's full
	// socket buffer (16 to 700 a run under -race), all three copies of a
	// session's datagram sometimes: most sessions must be counted then,
	// and every one of a round after the flood.
	testutil.WaitUntil(ctx, t, "the router to count most sessions' datagrams", func() bool {
		s := h.Stats()
		return s.Unrouted >= sessions/2 && s.NoRoom >= sessions/2
	})
	before := h.Stats()
	const after = 5
	for i := range after {
		c, err := transport.DialUDPContext(ctx, addr.String(), transport.UDPConfig{})
		if err != nil {
			t.Fatal(err)
		}
		c.Send(c.RemoteAddr(), []byte(fmt.Sprintf("not a hello %d", i)))
		c2, err := transport.DialUDPContext(ctx, addr.String(), transport.UDPConfig{})
		if err != nil {
			c.Close()
			t.Fatal(err)
		}
		c2.Send(c2.RemoteAddr(), (&codec.Hello{Game: 1, HasRoom: true, Room: [6]byte{'Y', 'Y', 'Y', 'Y', 'Y', 'Y'}}).Append(nil))
		testutil.WaitUntil(ctx, t, "the router to count a session's datagram after the flood", func() bool {
			s := h.Stats()
			return s.Unrouted >= before.Unrouted+uint64(i+1) && s.NoRoom >= before.NoRoom+uint64(i+1)
		})
		c.Close()
		c2.Close()
	}
	s := h.Stats()
	if dropped := s.UDP.Malformed + s.UDP.UnknownConn; dropped < bogus/2 {
		t.Errorf("the socket counted %d malformed and %d unknown-connection datagrams of %d bogus ones", s.UDP.Malformed, s.UDP.UnknownConn, bogus)
	}
	if s.Routes > 2 {
		t.Errorf("%d routes after the flood, want the 2 players' at most", s.Routes)
	}
}
