package udp

import (
	"encoding/binary"
	"net"
	"runtime"
	"strconv"
	"testing"
)

// TestUDPReaderConnected reads with a client's reader (its smaller
// batch) on a connected socket, as Client's is: 40 datagrams from the
// peer, all sent before the first read, arrive in order, a read takes
// more than one on Linux (recvmmsg) and never more than the batch.
func TestUDPReaderConnected(t *testing.T) {
	srv := udpReaderListen(t, "127.0.0.1:0")
	conn, err := net.DialUDP("udp", nil, srv.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := newUDPReader(conn, udpClientReadBatch)
	const total = 40
	for seq := range total {
		var p [4]byte
		binary.BigEndian.PutUint32(p[:], uint32(seq))
		if _, err := srv.WriteToUDP(p[:], conn.LocalAddr().(*net.UDPAddr)); err != nil {
			t.Fatal(err)
		}
	}
	most := 0
	for got := 0; got < total; {
		n, err := r.read()
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, n)
		for i := range n {
			b, from := r.datagram(i)
			if unmap(from) != srv.LocalAddr().(*net.UDPAddr).AddrPort() {
				t.Fatalf("datagram %d from %s, want the peer %s", got, from, srv.LocalAddr())
			}
			if len(b) != 4 || binary.BigEndian.Uint32(b) != uint32(got) {
				t.Fatalf("got %x, want datagram %d", b, got)
			}
			got++
		}
	}
	if most > udpClientReadBatch {
		t.Errorf("a read returned %d datagrams, more than the batch of %d", most, udpClientReadBatch)
	}
	if runtime.GOOS == "linux" && most < 2 {
		t.Errorf("the reads took at most %d datagram each: not batched", most)
	}
}

// TestUDPClientBatchedReads sends a client more datagrams than its
// reader's batch through a server's Batch (one sendmmsg on Linux): Recv
// returns every one in order, and the stats count them, with no more
// reads than datagrams.
func TestUDPClientBatchedReads(t *testing.T) {
	s := udpListenTest(t, Config{})
	c := udpDialTest(t, s, Config{})
	c.Send(c.RemoteAddr(), []byte("hi"))
	_, peer := udpRecvWait(t, s)
	before := c.Stats()
	const total = 50
	b := s.NewBatch()
	for seq := range total {
		if err := b.Send(peer, []byte{byte(seq), 0xAB}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	for seq := range total {
		got, from := udpRecvWait(t, c)
		if from != c.RemoteAddr() || len(got) != 2 || got[0] != byte(seq) || got[1] != 0xAB {
			t.Fatalf("datagram %d: %v from %s", seq, got, from)
		}
	}
	after := c.Stats()
	in, reads := after.DatagramsIn-before.DatagramsIn, after.Reads-before.Reads
	if in < total || reads == 0 || reads > in {
		t.Errorf("%d datagrams in %d reads, want at least %d datagrams and 1 to %[1]d reads", in, reads, total)
	}
	if n := after.BytesIn - before.BytesIn; n < total*(udpSealedOverhead+2) {
		t.Errorf("BytesIn counted %d, want at least %d", n, total*(udpSealedOverhead+2))
	}
	t.Logf("%d datagrams in %d reads", in, reads)
}

// BenchmarkUDPReaderConnected measures a read of a datagram on a
// connected socket (a client's) by a reader taking one datagram per
// system call and by one taking a client's batch: the peer writes 64
// datagrams, the reader reads them; ns/op is per datagram.
func BenchmarkUDPReaderConnected(b *testing.B) {
	for _, batch := range []int{1, udpClientReadBatch} {
		b.Run("batch="+strconv.Itoa(batch), func(b *testing.B) {
			srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
			if err != nil {
				b.Skip(err)
			}
			defer srv.Close()
			conn, err := net.DialUDP("udp", nil, srv.LocalAddr().(*net.UDPAddr))
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			to := conn.LocalAddr().(*net.UDPAddr)
			r := newUDPReader(conn, batch)
			p := make([]byte, 60)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i += 64 {
				b.StopTimer()
				for range 64 {
					srv.WriteToUDP(p, to)
				}
				b.StartTimer()
				for got := 0; got < 64; {
					n, err := r.read()
					if err != nil {
						b.Fatal(err)
					}
					got += n
				}
			}
		})
	}
}
