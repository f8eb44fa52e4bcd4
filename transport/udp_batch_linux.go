//go:build linux

package transport

import (
	"golang.org/x/net/ipv4"
)

// udpBatchSys sends a batch with sendmmsg(2) through x/net's
// ipv4.PacketConn.WriteBatch, which passes each message's address as given
// (an IPv4 address as sockaddr_in, which Linux takes on a dual-stack IPv6
// socket as well).
type udpBatchSys struct {
	pc   *ipv4.PacketConn
	msgs []ipv4.Message
}

func (y *udpBatchSys) init(b *udpBatch) {
	y.pc = ipv4.NewPacketConn(b.s.conn)
	y.msgs = make([]ipv4.Message, udpBatchLen)
	for i := range y.msgs {
		y.msgs[i].Buffers = make([][]byte, 1)
	}
}

func (y *udpBatchSys) flush(b *udpBatch, n int) {
	for i := range n {
		y.msgs[i].Buffers[0] = b.bufs[i]
		y.msgs[i].Addr = &b.addrs[i]
	}
	sent := 0
	for sent < n {
		k, err := y.pc.WriteBatch(y.msgs[sent:n], 0)
		if err != nil || k <= 0 {
			// What sendmmsg refused (its first datagram failed): count
			// that one as a send error, as a single write would, and go
			// on with the rest one by one.
			b.s.stats.sendErrors.Add(1)
			b.flushEach(sent+1, n)
			return
		}
		for i := sent; i < sent+k; i++ {
			b.s.stats.wrote(len(b.bufs[i]), nil)
		}
		sent += k
	}
}
