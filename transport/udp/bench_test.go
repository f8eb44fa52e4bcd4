package udp

import (
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// udpBenchPair is a server and a client with one open session.
func udpBenchPair(b *testing.B) (*Server, *Client, transport.Addr) {
	b.Helper()
	s, err := Listen("127.0.0.1:0", Config{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := Dial(s.UDPAddr().String(), Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(); s.Close() })
	c.Send(c.RemoteAddr(), []byte("hi"))
	buf := make([]byte, transport.MaxDatagram)
	deadline := time.After(10 * time.Second)
	for {
		if _, peer, err := s.Recv(buf); err == nil {
			return s, c, peer
		}
		select {
		case <-s.Ready():
		case <-deadline:
			b.Fatal("no first datagram")
		}
	}
}

// BenchmarkUDPSendVsRaw compares a UDP transport Send with a raw write of
// the same datagram (the framed bytes the transport writes) on the same
// socket to the same receiver, interleaved in blocks so that both see the
// same machine load. It reports ns per datagram of each and the
// transport's send rate as a fraction of the raw rate (goal >= 0.8).
func BenchmarkUDPSendVsRaw(b *testing.B) {
	for _, size := range []int{100, transport.MaxDatagram} {
		b.Run(fmt.Sprintf("client/%dB", size), func(b *testing.B) {
			_, c, _ := udpBenchPair(b)
			p := make([]byte, size)
			frame := c.seal.seal(nil, udpSealedData, c.sid, p) // the bytes Send writes
			to := c.RemoteAddr()
			udpCompare(b,
				func() { c.conn.Write(frame) },
				func() { c.Send(to, p) })
		})
		b.Run(fmt.Sprintf("server/%dB", size), func(b *testing.B) {
			s, c, peer := udpBenchPair(b)
			p := make([]byte, size)
			frame := udpTestSealed(udpSealedData, c.cid, p) // as long as what Send writes
			s.mu.RLock()
			dst := s.byAddr[peer].from
			s.mu.RUnlock()
			udpCompare(b,
				func() { s.conn.WriteToUDPAddrPort(frame, dst) },
				func() { s.Send(peer, p) })
		})
	}
}

// udpCompare runs raw and transport sends alternately in blocks and
// reports both per-datagram costs and their ratio.
func udpCompare(b *testing.B, raw, udp func()) {
	const block = 32
	udpInterleave(b, block, "raw", func() {
		for range block {
			raw()
		}
	}, "udp", func() {
		for range block {
			udp()
		}
	}, "rate-vs-raw")
}

// udpInterleave runs two ways of sending block datagrams alternately, so that
// both see the same machine load, and reports each one's ns per datagram
// (the median over blocks, so that a block hit by preemption on the shared
// machine does not count) and the second's rate relative to the first's.
func udpInterleave(b *testing.B, block int, aName string, a func(), bName string, bf func(), ratio string) {
	var aT, bT []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n += block {
		t0 := time.Now()
		a()
		t1 := time.Now()
		bf()
		t2 := time.Now()
		aT = append(aT, t1.Sub(t0))
		bT = append(bT, t2.Sub(t1))
	}
	b.StopTimer()
	aNs := float64(udpMedian(aT).Nanoseconds()) / float64(block)
	bNs := float64(udpMedian(bT).Nanoseconds()) / float64(block)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(aNs, aName+"-ns/dgram")
	b.ReportMetric(bNs, bName+"-ns/dgram")
	b.ReportMetric(aNs/bNs, ratio)
}

func udpMedian(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// BenchmarkUDPRoundTrip measures one datagram from client to server and
// back, through both reader goroutines and queues.
func BenchmarkUDPRoundTrip(b *testing.B) {
	s, c, peer := udpBenchPair(b)
	p := make([]byte, 100)
	buf := make([]byte, transport.MaxDatagram)
	to := c.RemoteAddr()
	wait := func(conn transport.Conn) {
		for {
			if _, _, err := conn.Recv(buf); err == nil {
				return
			}
			<-conn.Ready()
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Send(to, p)
		wait(s)
		s.Send(peer, p)
		wait(c)
	}
}

// BenchmarkUDPSealOpen measures sealing one DATA frame and opening it
// (the work encryption adds per datagram: once at the sender, once at
// the receiver), against writing and parsing the plaintext frame.
func BenchmarkUDPSealOpen(b *testing.B) {
	for _, size := range []int{20, 100, transport.MaxDatagram} {
		p := make([]byte, size)
		b.Run(fmt.Sprintf("sealed/%dB", size), func(b *testing.B) {
			send, _ := newUDPKeys([32]byte{1}, [32]byte{2})
			_, recv := newUDPKeys([32]byte{2}, [32]byte{1})
			buf := make([]byte, 0, udpMaxFrame)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				buf = send.seal(buf[:0], udpSealedData, 9, p)
				f, err := parseUDPFrame(buf)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := recv.open(&f); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("plain/%dB", size), func(b *testing.B) {
			buf := make([]byte, 0, udpMaxFrame)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				buf = appendUDPShort(buf[:0], udpData, 9, p)
				if _, err := parseUDPFrame(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUDPHandshakeServer measures the server's half of the sealed
// handshake (one X25519 key generated, two agreements, the WELCOME
// sealed): what each proven HELLO of a new session costs it.
func BenchmarkUDPHandshakeServer(b *testing.B) {
	key, _ := GenerateStaticKey()
	s := &Server{key: key}
	e, _ := ecdh.X25519().GenerateKey(rand.Reader)
	f := udpFrame{id: 7, ephemeral: e.PublicKey().Bytes()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.respond(f.id, f.ephemeral, netip.AddrPort{}); err != nil {
			b.Fatal(err)
		}
	}
}
