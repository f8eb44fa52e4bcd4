package host

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// TestMultiPeersPerAddr (issue 43 item 3): with PeersPerAddr 3, one
// address's hellos into 3 rooms take 3 routes; its fourth peer is
// refused full whatever room it names, while another address (and an
// IPv6 address of another /64) still gets in; once a route is forgotten
// (its room closed) the address may take one more. Peers that are not
// UDP sessions are not counted.
func TestMultiPeersPerAddr(t *testing.T) {
	h, err := NewMulti[testgame.Input](&testgame.Game{}, &nullConn{ready: make(chan struct{})}, Options{PeersPerAddr: 3})
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for range 4 {
		code, err := h.Open("")
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, code)
	}
	hello := func(code string) []byte {
		m := codec.Hello{Game: 1, HasRoom: true}
		copy(m.Room[:], code)
		m.RoomLen = uint8(len(code))
		return m.Append(nil)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	peer := func(ip string, n int) transport.Addr {
		return transport.Addr(fmt.Sprintf("udp:%s:%d#%d", ip, 4000+n, n))
	}
	for i := range 3 {
		if r, _ := h.route(peer("10.0.0.1", i), hello(codes[i]), now); r == nil {
			t.Fatalf("peer %d of the address refused", i)
		}
	}
	if r, _ := h.route(peer("10.0.0.1", 3), hello(codes[3]), now); r != nil {
		t.Fatal("the address's fourth peer was routed")
	}
	if r, _ := h.route(peer("10.0.0.1", 0), hello(codes[0]), now); r == nil {
		t.Fatal("a peer with a route lost it")
	}
	if r, _ := h.route(peer("10.0.0.2", 0), hello(codes[3]), now); r == nil {
		t.Fatal("another address refused")
	}
	for i := range 4 {
		ip := fmt.Sprintf("[2001:db8:0:%d::1]", i)
		if r, _ := h.route(transport.Addr(fmt.Sprintf("udp:%s:5000#%d", ip, i)), hello(codes[3]), now); r == nil {
			t.Fatalf("IPv6 peer of /64 number %d refused", i)
		}
	}
	for i := range 4 {
		if r, _ := h.route(transport.Addr(fmt.Sprintf("p%d", i)), hello(codes[3]), now); r == nil {
			t.Fatalf("a non-UDP peer %d refused", i)
		}
	}
	if s := h.Stats(); s.AddrRefused != 1 {
		t.Fatalf("AddrRefused %d, want 1", s.AddrRefused)
	}
	if err := h.CloseRoom(codes[0]); err != nil {
		t.Fatal(err)
	}
	if r, _ := h.route(peer("10.0.0.1", 3), hello(codes[3]), now); r == nil {
		t.Fatal("the address's peer refused after one of its routes went with its room")
	}
}

func TestAddrKey(t *testing.T) {
	for a, want := range map[transport.Addr]string{
		"udp:10.1.2.3:4000#7":          "10.1.2.3",
		"udp:[::ffff:10.1.2.3]:4000#7": "10.1.2.3",
		"udp:[2001:db8:1:2:3::4]:9#1":  "2001:db8:1:2::/64",
		"p1":                           "",
		"udp:nonsense":                 "",
	} {
		if got, _ := addrKey(a); got != want {
			t.Errorf("addrKey(%s) = %q, want %q", a, got, want)
		}
	}
}
