package host_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport/udp"
)

// TestMultiFlood plays a match of two in a room of a Multi while
// one address sends thousands of bogus datagrams and 20 sessions that
// completed the UDP handshake send the router what it must drop: a first
// datagram that is not a hello, and hellos for a room nobody has. The two
// players agree at tick 120; every bogus datagram shows in a counter with
// its reason (the socket's malformed and unknown-connection counts, the
// router's unrouted and no-room counts), and the router keeps no route for
// any of them.
//
// The flood keeps at most floodWindow of its datagrams in flight (sent,
// not yet counted by the socket): as fast as the host takes them, but
// never more than the socket's receive buffer holds. A datagram the
// kernel drops from a full buffer shows in no counter of the host's, and
// a loaded machine (the race detector, two cores) let it drop half the
// flood and, now and then, a session's datagram.
func TestMultiFlood(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h, err := host.ListenUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", host.Options{
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

	// Every bogus datagram (16 to 63 random bytes) is malformed or names
	// a connection the socket does not have.
	counted := func() uint64 { s := h.Stats().UDP; return s.Malformed + s.UnknownConn }
	var wg sync.WaitGroup
	const bogus, floodWindow = 5000, 64
	wg.Go(func() { // garbage from one address
		c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(addr))
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		b := make([]byte, 64)
		for i := range bogus {
			for i%16 == 0 && uint64(i) > counted()+floodWindow-16 {
				if ctx.Err() != nil {
					t.Errorf("the socket counted %d of %d bogus datagrams sent", counted(), i)
					return
				}
				runtime.Gosched()
			}
			rand.Read(b)
			b[0] = byte(i) // every frame type, valid or not
			c.Write(b[:16+i%48])
		}
	})
	const sessions = 20
	wg.Go(func() { // sessions that speak UDP but not the match
		for i := range sessions {
			if err := floodBadSessions(ctx, addr.String(), i, "ZZZZZZ"); err != nil {
				t.Error(err)
				return
			}
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
	testutil.WaitUntil(ctx, t, "the router to count every session's datagrams", func() bool {
		s := h.Stats()
		return s.Unrouted >= sessions && s.NoRoom >= sessions
	})
	// After the flood: each session's datagram is counted, one at a time.
	before := h.Stats()
	const after = 5
	for i := range after {
		if err := floodBadSessions(ctx, addr.String(), i, "YYYYYY"); err != nil {
			t.Fatal(err)
		}
		testutil.WaitUntil(ctx, t, "the router to count a session's datagram after the flood", func() bool {
			s := h.Stats()
			return s.Unrouted >= before.Unrouted+uint64(i+1) && s.NoRoom >= before.NoRoom+uint64(i+1)
		})
	}
	if n := counted(); n < bogus {
		t.Errorf("the socket counted %d malformed and unknown-connection datagrams of %d bogus ones", n, bogus)
	}
	if s := h.Stats(); s.Routes > 2 {
		t.Errorf("%d routes after the flood, want the 2 players' at most", s.Routes)
	}
}

// floodBadSessions opens two UDP sessions to addr that send the router
// what it must drop: the first a datagram that is not a hello (the i-th),
// the second a hello for room, which no room has. Each goes three times
// (the router counts every copy and keeps no route for them).
func floodBadSessions(ctx context.Context, addr string, i int, room string) error {
	c, err := udp.DialContext(ctx, addr, udp.Config{})
	if err != nil {
		return err
	}
	defer c.Close()
	c2, err := udp.DialContext(ctx, addr, udp.Config{})
	if err != nil {
		return err
	}
	defer c2.Close()
	h := codec.Hello{Game: 1}
	h.SetRoom(room)
	hello := h.Append(nil)
	for range 3 {
		c.Send(c.RemoteAddr(), []byte(fmt.Sprintf("not a hello %d", i)))
		c2.Send(c2.RemoteAddr(), hello)
	}
	return nil
}
