package transport

import (
	"fmt"
	"time"
)

// SimConn is an endpoint of a SimNetwork; it implements Conn. A SimConn from
// Listen may send to any endpoint of its network; one from Dial only to its
// RemoteAddr. Datagrams to an endpoint that is closed or not yet open are
// dropped silently, as a network would, and counted as Unroutable. Close
// does not close the Ready channel.
type SimConn struct {
	net        *SimNetwork
	name       string
	addr       Addr
	remote     Addr
	remoteName string
	inbox      simRing
	ready      chan struct{}
	closed     bool
	stats      SimStats
	routes     map[Addr]simRoute // destinations resolved, while routesGen is the network's epGen
	routesGen  uint64
}

var _ Conn = (*SimConn)(nil)

// Send implements Conn.
func (c *SimConn) Send(to Addr, p []byte) error {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if c.closed {
		return fmt.Errorf("transport: send from %s: %w", c.addr, ErrClosed)
	}
	if len(p) > MaxDatagram {
		return fmt.Errorf("transport: send %d bytes from %s: %w", len(p), c.addr, ErrTooLarge)
	}
	if c.routesGen == n.epGen {
		if r, ok := c.routes[to]; ok {
			n.sendRouted(c, r, p)
			return nil
		}
	}
	var dst string
	if c.remote != "" {
		if to != c.remote {
			return fmt.Errorf("transport: send from %s to %s (dialed %s): %w", c.addr, to, c.remote, ErrUnknownPeer)
		}
		dst = c.remoteName
	} else {
		name, ok := simName(to)
		if !ok {
			return fmt.Errorf("transport: send from %s to %q: %w", c.addr, to, ErrUnknownPeer)
		}
		if _, open := n.eps[name]; !open {
			if _, was := n.gone[name]; !was {
				return fmt.Errorf("transport: send from %s to %s: %w", c.addr, to, ErrUnknownPeer)
			}
		}
		dst = name
	}
	n.send(c, to, dst, p)
	return nil
}

// Recv implements Conn.
func (c *SimConn) Recv(p []byte) (int, Addr, error) {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if c.closed {
		return 0, "", fmt.Errorf("transport: recv on %s: %w", c.addr, ErrClosed)
	}
	if c.inbox.len() == 0 {
		return 0, "", ErrWouldBlock
	}
	pkt := c.inbox.pop()
	k := copy(p, pkt.buf)
	n.putBuf(pkt.buf)
	return k, pkt.from, nil
}

// Ready implements Conn. The channel holds at most one signal: after a
// wake-up, call Recv until it returns ErrWouldBlock.
func (c *SimConn) Ready() <-chan struct{} { return c.ready }

// LocalAddr implements Conn.
func (c *SimConn) LocalAddr() Addr { return c.addr }

// RemoteAddr implements Conn.
func (c *SimConn) RemoteAddr() Addr { return c.remote }

// Close implements Conn. Datagrams waiting in the inbox or in flight to it
// are dropped, and the name may be opened again.
func (c *SimConn) Close() error {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if c.closed {
		return fmt.Errorf("transport: close %s: %w", c.addr, ErrClosed)
	}
	c.closed = true
	for c.inbox.len() > 0 {
		n.putBuf(c.inbox.pop().buf)
	}
	if n.eps[c.name] == c {
		delete(n.eps, c.name)
		n.epGen++
	}
	s := c.stats
	if old, ok := n.gone[c.name]; ok {
		s.add(*old) // keep totals across reopenings under one name
	}
	n.gone[c.name] = &s
	return nil
}

// Stats returns the endpoint's counters.
func (c *SimConn) Stats() SimStats {
	c.net.mu.Lock()
	defer c.net.mu.Unlock()
	return c.stats
}

// Pending returns how many datagrams wait in the endpoint's inbox.
func (c *SimConn) Pending() int {
	c.net.mu.Lock()
	defer c.net.mu.Unlock()
	return c.inbox.len()
}

// simPacket is a datagram in flight or waiting in an inbox.
type simPacket struct {
	at   time.Duration // delivery time, since the network's start
	seq  uint64
	to   *SimConn
	from Addr
	buf  []byte
}

// simRing is a growable FIFO of packets.
type simRing struct {
	buf        []simPacket
	head, size int
}

func (r *simRing) len() int { return r.size }

func (r *simRing) push(p simPacket) {
	if r.size == len(r.buf) {
		nb := make([]simPacket, max(16, 2*len(r.buf)))
		for i := 0; i < r.size; i++ {
			nb[i] = r.buf[(r.head+i)%len(r.buf)]
		}
		r.buf, r.head = nb, 0
	}
	r.buf[(r.head+r.size)%len(r.buf)] = p
	r.size++
}

func (r *simRing) pop() simPacket {
	p := r.buf[r.head]
	r.buf[r.head] = simPacket{}
	r.head = (r.head + 1) % len(r.buf)
	r.size--
	return p
}

// simQueue is a min-heap of packets by (at, seq), written out by hand so
// that pushing a packet does not allocate.
type simQueue []simPacket

func (q simQueue) less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}

func (q *simQueue) push(p simPacket) {
	*q = append(*q, p)
	h := *q
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (q *simQueue) pop() simPacket {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = simPacket{}
	h = h[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h.less(l, m) {
			m = l
		}
		if r < len(h) && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
