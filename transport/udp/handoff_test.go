package udp

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// TestUDPHandoff: with a Handler set, a session's datagrams go to it (on
// the reader's goroutine, with the peer's Addr and a read time) and none
// to Recv; after SetHandler(nil) they queue for Recv again.
func TestUDPHandoff(t *testing.T) {
	s := udpListenTest(t, Config{})
	c := udpDialTest(t, s, Config{})
	type got struct {
		from transport.Addr
		p    string
		at   time.Time
	}
	handed := make(chan got, 16)
	s.SetHandler(func(from transport.Addr, p []byte, at time.Time) {
		handed <- got{from, string(p), at} // p is valid during the call only: copied
	})
	before := time.Now()
	if err := c.Send(c.RemoteAddr(), []byte("one")); err != nil {
		t.Fatal(err)
	}
	var g got
	select {
	case g = <-handed:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not called")
	}
	if g.p != "one" || g.from == "" || g.at.Before(before) || g.at.After(time.Now()) {
		t.Fatalf("handed %+v; want \"one\" from the client's session, read after %v", g, before)
	}
	buf := make([]byte, transport.MaxDatagram)
	if n, from, err := s.Recv(buf); err == nil {
		t.Fatalf("Recv got %q from %s: a handed datagram was queued too", buf[:n], from)
	}

	s.SetHandler(nil)
	if err := c.Send(c.RemoteAddr(), []byte("two")); err != nil {
		t.Fatal(err)
	}
	p, from := udpRecvWait(t, s)
	if string(p) != "two" || from != g.from {
		t.Fatalf("after SetHandler(nil): Recv got %q from %s; want \"two\" from %s", p, from, g.from)
	}
	select {
	case g := <-handed:
		t.Fatalf("handed %+v after SetHandler(nil)", g)
	default:
	}
}
