package host

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// nullConn is a server-side Conn that drops what is sent and has nothing
// to read: the router's own allocations, without a transport's.
type nullConn struct{ ready chan struct{} }

func (c *nullConn) Send(transport.Addr, []byte) error        { return nil }
func (c *nullConn) Recv([]byte) (int, transport.Addr, error) { return 0, "", transport.ErrWouldBlock }
func (c *nullConn) Ready() <-chan struct{}                   { return c.ready }
func (c *nullConn) LocalAddr() transport.Addr                { return "null" }
func (c *nullConn) RemoteAddr() transport.Addr               { return "" }
func (c *nullConn) Close() error                             { return nil }

// TestMultiRouteBogusAllocs: what a Multi's router drops from
// peers it has no route for (a first datagram that is not a hello, a
// hello that does not parse, a hello for a room nobody has, answered with
// a refusal) allocates nothing and leaves no route.
func TestMultiRouteBogusAllocs(t *testing.T) {
	h, err := NewMulti[testgame.Input](&testgame.Game{}, &nullConn{ready: make(chan struct{})}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Open(""); err != nil {
		t.Fatal(err)
	}
	noRoom := (&codec.Hello{Game: 1, HasRoom: true, Room: [codec.MaxRoomCodeSize]byte{'Z', 'Z', 'Z', 'Z', 'Z', 'Z'}}).Append(nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, p := range map[string][]byte{
		"not-a-hello": []byte("not a hello"),
		"bad-hello":   noRoom[:3],
		"no-room":     noRoom,
	} {
		allocs := testing.AllocsPerRun(100, func() {
			if r, _ := h.route("udp:127.0.0.1:4000#1", p, now); r != nil {
				t.Fatalf("%s routed", name)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations per datagram, want 0", name, allocs)
		}
	}
	if s := h.Stats(); s.Routes != 0 || s.Unrouted == 0 || s.NoRoom == 0 {
		t.Errorf("routes %d, unrouted %d, no room %d: want 0 routes and both counted", s.Routes, s.Unrouted, s.NoRoom)
	}
}
