package webrtc

import (
	"errors"
	"testing"
	"time"

	pion "github.com/pion/webrtc/v4"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/transport"
)

// TestHandover: a Peer whose Config.Handover takes the data channel
// opens when the channel does, carries no datagram itself, and the
// channel's new owner talks to the host; the channel's closing fails the
// Peer.
func TestHandover(t *testing.T) {
	testutil.SkipSockets(t)
	host, err := NewHost(Config{Loopback: true})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	got := make(chan []byte, 4)
	var dc *pion.DataChannel
	cfg := Config{Loopback: true, Handover: func(ch any) (Handed, error) {
		dc = ch.(*pion.DataChannel)
		open, closed := make(chan struct{}), make(chan struct{})
		dc.OnOpen(func() { close(open) })
		dc.OnClose(func() { close(closed) })
		dc.OnMessage(func(m pion.DataChannelMessage) { got <- m.Data })
		return Handed{Open: open, Closed: closed}, nil
	}}
	peer, stop := webrtcConnect(t, host, cfg, "p0")
	defer stop()
	defer peer.Close()
	if err := peer.Send(peer.RemoteAddr(), []byte("x")); err == nil {
		t.Errorf("the Peer sent on a channel it handed over (err %v)", err)
	}
	if err := dc.Send([]byte("from the new owner")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, transport.MaxDatagram)
	n, from := testutil.Recv(t, host, buf)
	if string(buf[:n]) != "from the new owner" {
		t.Fatalf("host got %q", buf[:n])
	}
	if err := host.Send(from, []byte("to the new owner")); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-got:
		if string(b) != "to the new owner" {
			t.Fatalf("the owner got %q", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the owner got nothing")
	}
	if _, _, err := peer.Recv(buf); !errors.Is(err, transport.ErrWouldBlock) {
		t.Errorf("the Peer received (%v)", err)
	}
	_ = dc.Close()
	select {
	case <-peer.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the channel closed and the Peer did not fail")
	}
}

// TestHostHandover: a Host whose Config.HostHandover takes each peer's
// data channel hands it over under the peer's address, carries none of
// its datagrams (the new owner does, both ways), and reports the
// channel's opening and closing through OnPeerOpen and OnPeerClose.
func TestHostHandover(t *testing.T) {
	testutil.SkipSockets(t)
	type handed struct {
		peer transport.Addr
		dc   *pion.DataChannel
		got  chan []byte
	}
	hands := make(chan handed, 1)
	host, err := NewHost(Config{Loopback: true, HostHandover: func(peer transport.Addr, ch any) (Handed, error) {
		h := handed{peer: peer, dc: ch.(*pion.DataChannel), got: make(chan []byte, 4)}
		open, closed := make(chan struct{}), make(chan struct{})
		h.dc.OnOpen(func() { close(open) })
		h.dc.OnClose(func() { close(closed) })
		h.dc.OnMessage(func(m pion.DataChannelMessage) { h.got <- m.Data })
		hands <- h
		return Handed{Open: open, Closed: closed}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	opened, closed := make(chan transport.Addr, 1), make(chan transport.Addr, 1)
	host.OnPeerOpen = func(a transport.Addr) { opened <- a }
	host.OnPeerClose = func(a transport.Addr) { closed <- a }
	peer, stop := webrtcConnect(t, host, Config{Loopback: true}, "p3")
	defer stop()
	defer peer.Close()
	h := <-hands
	if h.peer != PeerAddr("p3") {
		t.Errorf("handed over as %q, want %q", h.peer, PeerAddr("p3"))
	}
	if a := <-opened; a != PeerAddr("p3") {
		t.Errorf("OnPeerOpen(%q)", a)
	}
	if err := peer.Send(peer.RemoteAddr(), []byte("to the new owner")); err != nil {
		t.Fatal(err)
	}
	if b := <-h.got; string(b) != "to the new owner" {
		t.Fatalf("the owner got %q", b)
	}
	if err := h.dc.Send([]byte("from the new owner")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, transport.MaxDatagram)
	if n, _ := testutil.Recv(t, peer, buf); string(buf[:n]) != "from the new owner" {
		t.Fatalf("the peer got %q", buf[:n])
	}
	if _, _, err := host.Recv(buf); !errors.Is(err, transport.ErrWouldBlock) {
		t.Errorf("the host received (%v)", err)
	}
	_ = h.dc.Close()
	if a := <-closed; a != PeerAddr("p3") {
		t.Errorf("OnPeerClose(%q)", a)
	}
}
