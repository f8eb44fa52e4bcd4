package udp

import (
	"fmt"
	"net"

	"github.com/rewindnet/rewind/transport"
)

// udpBatchLen is how many datagrams a UDP batch holds before it flushes
// by itself: 64, where sendmmsg's gain has levelled off (docs/benchmarks.md,
// "Raw per-datagram cost").
const udpBatchLen = 64

// udpBatch is a Server's Batch: DATA frames built into buffers of their
// own, sent by flush (udp_batch_linux.go: a raw sendmmsg system call;
// elsewhere one write per datagram).
type udpBatch struct {
	s     *Server
	bufs  [udpBatchLen][]byte
	addrs [udpBatchLen]net.UDPAddr
	n     int
	sys   udpBatchSys // the platform's part
}

var _ transport.Batcher = (*Server)(nil)

// NewBatch implements Batcher: sends to the server's sessions, several in
// one system call where the platform allows.
func (s *Server) NewBatch() transport.Batch {
	b := &udpBatch{s: s}
	for i := range b.bufs {
		b.bufs[i] = make([]byte, 0, udpMaxFrame)
		b.addrs[i].IP = make(net.IP, 0, net.IPv6len)
	}
	b.sys.init(b)
	return b
}

// Send implements Batch.
func (b *udpBatch) Send(to transport.Addr, p []byte) error {
	s := b.s
	if s.closed.Load() {
		return fmt.Errorf("transport: udp send to %s: %w", to, transport.ErrClosed)
	}
	if len(p) > transport.MaxDatagram {
		return fmt.Errorf("transport: udp send %d bytes to %s: %w", len(p), to, transport.ErrTooLarge)
	}
	s.mu.RLock()
	sess := s.byAddr[to]
	s.mu.RUnlock()
	if sess == nil {
		return fmt.Errorf("transport: udp send to %s: %w", to, transport.ErrUnknownPeer)
	}
	if b.n == udpBatchLen {
		if err := b.Flush(); err != nil {
			return err
		}
	}
	b.bufs[b.n] = sess.short(b.bufs[b.n][:0], udpData, p) // sealed when the session is
	a := &b.addrs[b.n]
	ip := sess.from.Addr()
	if ip.Is4() {
		v := ip.As4()
		a.IP = append(a.IP[:0], v[:]...)
	} else {
		v := ip.As16()
		a.IP = append(a.IP[:0], v[:]...)
	}
	a.Port, a.Zone = int(sess.from.Port()), ip.Zone()
	b.n++
	return nil
}

// Flush implements Batch.
func (b *udpBatch) Flush() error {
	if b.n == 0 {
		return nil
	}
	n := b.n
	b.n = 0
	if b.s.closed.Load() {
		return fmt.Errorf("transport: udp send on %s: %w", b.s.local, transport.ErrClosed)
	}
	b.s.stats.flushes.Add(1)
	b.sys.flush(b, n)
	return nil
}

// flushEach writes the first n datagrams of b one by one: the fallback
// where sendmmsg is missing or failed.
func (b *udpBatch) flushEach(from, n int) {
	for i := from; i < n; i++ {
		b.s.stats.wrote(b.s.conn.WriteToUDP(b.bufs[i], &b.addrs[i]))
	}
}
