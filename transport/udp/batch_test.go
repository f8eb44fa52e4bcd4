package udp

import (
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/transport"
)

// TestUDPBatch sends through a Batch to three clients, more datagrams than
// a batch holds (so that it flushes by itself), on an IPv4 socket, on a
// dual-stack one (0.0.0.0 opens an IPv6 socket that takes IPv4 peers) and
// on an IPv6 one (where the machine has ::1): every datagram arrives, in
// order per client, and the stats count them.
func TestUDPBatch(t *testing.T) { udpBatchCheck(t) }

func udpBatchCheck(t *testing.T) {
	for _, tc := range []struct{ listen, dial string }{
		{"127.0.0.1:0", "127.0.0.1"},
		{"0.0.0.0:0", "127.0.0.1"},
		{"[::1]:0", "::1"},
	} {
		t.Run(tc.listen, func(t *testing.T) {
			testutil.SkipSockets(t)
			s, err := Listen(tc.listen, Config{})
			if err != nil && tc.dial == "::1" {
				t.Skipf("no IPv6 loopback: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var clients []*Client
			var peers []transport.Addr
			for range 3 {
				c, err := Dial(net.JoinHostPort(tc.dial, fmt.Sprint(s.UDPAddr().Port())), Config{})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if err := c.Send(c.RemoteAddr(), []byte("hi")); err != nil {
					t.Fatal(err)
				}
				_, peer := udpRecvWait(t, s)
				clients, peers = append(clients, c), append(peers, peer)
			}
			before := s.Stats()
			b := s.NewBatch()
			const per = 30 // 90 datagrams: more than udpBatchLen
			for i := range per {
				for j, p := range peers {
					if err := b.Send(p, []byte{byte(j), byte(i)}); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := b.Send("udp:127.0.0.1:1#9", []byte("x")); !errors.Is(err, transport.ErrUnknownPeer) {
				t.Errorf("send to no session: %v", err)
			}
			if err := b.Send(peers[0], make([]byte, transport.MaxDatagram+1)); !errors.Is(err, transport.ErrTooLarge) {
				t.Errorf("oversized send: %v", err)
			}
			if err := b.Flush(); err != nil {
				t.Fatal(err)
			}
			for j, c := range clients {
				for i := range per {
					got, _ := udpRecvWait(t, c)
					if len(got) != 2 || got[0] != byte(j) || got[1] != byte(i) {
						t.Fatalf("client %d datagram %d: %v", j, i, got)
					}
				}
			}
			after := s.Stats()
			if n := after.DatagramsOut - before.DatagramsOut; n < 3*per || after.SendErrors != 0 {
				t.Errorf("datagrams out %d (want at least %d), send errors %d", n, 3*per, after.SendErrors)
			}
			if f := after.Flushes - before.Flushes; f != 2 {
				t.Errorf("%d flushes of 90 datagrams, want 2 (64 and 26)", f)
			}
			s.Close()
			if err := b.Send(peers[0], []byte("x")); !errors.Is(err, transport.ErrClosed) {
				t.Errorf("send after close: %v", err)
			}
		})
	}
}
