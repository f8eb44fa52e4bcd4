package udp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/transport"
)

// udpReaderListen opens a plain socket on listen for a udpReader, or
// skips when the machine has no such address (IPv6).
func udpReaderListen(t *testing.T, listen string) *net.UDPConn {
	t.Helper()
	testutil.SkipSockets(t)
	ua, err := net.ResolveUDPAddr("udp", listen)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenUDP("udp", ua)
	if err != nil {
		if ua.IP.To4() == nil && !ua.IP.IsUnspecified() {
			t.Skipf("no IPv6 here: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// udpReaderCheck sends per datagrams from each of senders sockets (all
// sent before anything is read, more than a batch in all) to conn, whose
// reader r reads them: every one arrives once, in order per sender, from
// the sender's address; an oversized datagram comes truncated to
// udpReadBufLen. It returns the largest batch one read returned.
func udpReaderCheck(t *testing.T, conn *net.UDPConn, r *udpReader, dial string, senders, per int) int {
	t.Helper()
	port := conn.LocalAddr().(*net.UDPAddr).Port
	srv, err := net.ResolveUDPAddr("udp", net.JoinHostPort(dial, strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	var socks []*net.UDPConn
	want := map[netip.AddrPort]int{} // sender -> its index
	for i := range senders {
		c, err := net.DialUDP("udp", nil, srv)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		socks = append(socks, c)
		want[c.LocalAddr().(*net.UDPAddr).AddrPort()] = i
	}
	for seq := range per {
		for i, c := range socks {
			var p [8]byte
			binary.BigEndian.PutUint32(p[:], uint32(i))
			binary.BigEndian.PutUint32(p[4:], uint32(seq))
			if _, err := c.Write(p[:]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := socks[0].Write(make([]byte, 3000)); err != nil {
		t.Fatal(err)
	}
	next := make([]int, senders)
	most, got, oversized := 0, 0, false
	for got < senders*per || !oversized {
		n, err := r.read()
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, n)
		for k := range n {
			b, from := r.datagram(k)
			i, ok := want[unmap(from)]
			if !ok {
				t.Fatalf("datagram from %s: no sender has that address", from)
			}
			if len(b) == 3000 || len(b) == udpReadBufLen {
				if i != 0 || len(b) != udpReadBufLen || oversized {
					t.Fatalf("oversized datagram: %d bytes from sender %d", len(b), i)
				}
				oversized = true
				continue
			}
			if len(b) != 8 || binary.BigEndian.Uint32(b) != uint32(i) || binary.BigEndian.Uint32(b[4:]) != uint32(next[i]) {
				t.Fatalf("sender %d (%s): got %x, want its datagram %d", i, from, b, next[i])
			}
			next[i]++
			got++
		}
	}
	return most
}

// TestUDPReader reads datagrams of several senders, more than a batch,
// on an IPv4 socket, a dual-stack one (0.0.0.0 opens an IPv6 socket that
// reports IPv4 peers as IPv4-mapped addresses) and an IPv6 one: each
// arrives once, in order per sender, with its sender's address. On Linux
// the reads are batched (recvmmsg): a read returns more than one.
func TestUDPReader(t *testing.T) {
	for _, tc := range []struct{ listen, dial string }{
		{"127.0.0.1:0", "127.0.0.1"},
		{"0.0.0.0:0", "127.0.0.1"},
		{"[::1]:0", "::1"},
	} {
		t.Run(tc.listen, func(t *testing.T) {
			conn := udpReaderListen(t, tc.listen)
			most := udpReaderCheck(t, conn, newUDPReader(conn, udpReadBatch), tc.dial, 3, 30)
			if runtime.GOOS == "linux" && most < 2 {
				t.Errorf("the reads took at most %d datagram each: not batched", most)
			}
		})
	}
}

// TestUDPReaderClosed: a read blocked on an empty socket returns
// net.ErrClosed when the socket closes.
func TestUDPReaderClosed(t *testing.T) {
	conn := udpReaderListen(t, "127.0.0.1:0")
	r := newUDPReader(conn, udpReadBatch)
	done := make(chan error, 1)
	go func() {
		_, err := r.read()
		done <- err
	}()
	conn.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read on a closed socket: %v", err)
	}
}

// TestUDPReaderAllocs checks that reading allocates nothing per datagram
// once running: a reader, then a whole server's receive path (sealed
// sessions, the queue, Recv), each given 16 datagrams per run.
func TestUDPReaderAllocs(t *testing.T) {
	t.Run("reader", func(t *testing.T) {
		conn := udpReaderListen(t, "127.0.0.1:0")
		r := newUDPReader(conn, udpReadBatch)
		c, err := net.DialUDP("udp", nil, conn.LocalAddr().(*net.UDPAddr))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		p := make([]byte, 40)
		allocs := testing.AllocsPerRun(100, func() {
			for range 16 {
				c.Write(p)
			}
			for got := 0; got < 16; {
				n, err := r.read()
				if err != nil {
					t.Fatal(err)
				}
				got += n
			}
		})
		if allocs > 0 {
			t.Errorf("%.0f allocations per 16 datagrams read", allocs)
		}
	})
	t.Run("server", func(t *testing.T) {
		s := udpListenTest(t, Config{})
		c := udpDialTest(t, s, Config{})
		c.Send(c.RemoteAddr(), []byte("hi"))
		udpRecvWait(t, s)
		p := make([]byte, 40)
		buf := make([]byte, transport.MaxDatagram)
		allocs := testing.AllocsPerRun(100, func() {
			for range 16 {
				c.Send(c.RemoteAddr(), p)
			}
			for got := 0; got < 16; {
				if _, _, err := s.Recv(buf); err == nil {
					got++
				} else {
					<-s.Ready()
				}
			}
		})
		if allocs > 0 {
			t.Errorf("%.0f allocations per 16 datagrams through the server", allocs)
		}
	})
	t.Run("client", func(t *testing.T) {
		s := udpListenTest(t, Config{})
		c := udpDialTest(t, s, Config{})
		c.Send(c.RemoteAddr(), []byte("hi"))
		_, peer := udpRecvWait(t, s)
		b := s.NewBatch() // one sendmmsg: the client finds them waiting
		p := make([]byte, 40)
		buf := make([]byte, transport.MaxDatagram)
		allocs := testing.AllocsPerRun(100, func() {
			for range 16 {
				b.Send(peer, p)
			}
			b.Flush()
			for got := 0; got < 16; {
				if _, _, err := c.Recv(buf); err == nil {
					got++
				} else {
					<-c.Ready()
				}
			}
		})
		if allocs > 0 {
			t.Errorf("%.0f allocations per 16 datagrams to the client", allocs)
		}
	})
}

// TestUDPServerBatchedReads: several clients send many datagrams at once
// to a server on an IPv4 and on a dual-stack socket; Recv returns every
// one, in order per client, from that client's peer address, and the
// stats count them.
func TestUDPServerBatchedReads(t *testing.T) {
	for _, listen := range []string{"127.0.0.1:0", "0.0.0.0:0"} {
		t.Run(listen, func(t *testing.T) {
			testutil.SkipSockets(t)
			s, err := Listen(listen, Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			const clients, per = 4, 40
			var cs []*Client
			peer := map[transport.Addr]int{}
			for i := range clients {
				c, err := Dial(fmt.Sprintf("127.0.0.1:%d", s.UDPAddr().Port()), Config{})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.Send(c.RemoteAddr(), []byte{byte(i), 0xFF})
				_, from := udpRecvWait(t, s)
				peer[from] = i
				cs = append(cs, c)
			}
			before := s.Stats()
			for seq := range per {
				for i, c := range cs {
					if err := c.Send(c.RemoteAddr(), []byte{byte(i), byte(seq)}); err != nil {
						t.Fatal(err)
					}
				}
			}
			next := make([]int, clients)
			for range clients * per {
				b, from := udpRecvWait(t, s)
				i, ok := peer[from]
				if !ok || len(b) != 2 || b[0] != byte(i) || int(b[1]) != next[i] {
					t.Fatalf("got %v from %s (client %d, ok %v), want datagram %d", b, from, i, ok, next[i])
				}
				next[i]++
			}
			after := s.Stats()
			if n := after.DatagramsIn - before.DatagramsIn; n < clients*per {
				t.Errorf("DatagramsIn counted %d, want at least %d", n, clients*per)
			}
			if n := after.BytesIn - before.BytesIn; n < clients*per*(udpSealedOverhead+2) {
				t.Errorf("BytesIn counted %d, want at least %d", n, clients*per*(udpSealedOverhead+2))
			}
		})
	}
}
