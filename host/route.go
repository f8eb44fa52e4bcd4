package host

import (
	"fmt"
	"sync"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/transport"
)

// route finds the room of a datagram from from, read at now, and queues
// the datagram there. A peer's first datagram must be a hello: its room
// code (or, without one, the first room) decides. It returns the room, or
// nil when the datagram was dropped (or answered with a Refuse), and
// whether the room should run now for it (soon): not for a player's
// inputs while the room ticks anyway (roomMatch.lazy) and its queue is
// under half full; they wait for the room's next tick.
func (h *Multi[I]) route(from transport.Addr, p []byte, now time.Time) (r *roomMatch[I], soon bool) {
	h.mu.Lock()
	rt, ok := h.byAddr[from]
	if ok {
		if rt.m.closed.Load() {
			h.dropRoute(from)
			ok = false
		} else if now.UnixNano()-rt.last > int64(time.Second) {
			rt.last = now.UnixNano() // refreshed once a second at most: a map write per datagram costs
			h.byAddr[from] = rt
		}
	}
	if !ok && h.addrFull(from) {
		h.mu.Unlock()
		h.send(from, refuseFull) // peraddr.go
		return nil, false
	}
	if !ok {
		r, refuse := h.roomOfPeer(from, p)
		if r == nil {
			h.mu.Unlock()
			if refuse {
				h.send(from, refuseNoRoom)
			}
			return nil, false
		}
		rt = route[I]{m: r, last: now.UnixNano()}
		h.addRoute(from, rt)
	}
	h.mu.Unlock()
	queued := rt.m.sub.push(from, p, now)
	if queued == 0 {
		h.mu.Lock()
		h.dropped++
		h.mu.Unlock()
		return nil, false
	}
	if rt.m.lazy.Load() && 2*queued < len(rt.m.sub.slots) {
		if typ, _, err := codec.Peek(p); err == nil && typ == codec.TypeClientInputs {
			return rt.m, false
		}
	}
	return rt.m, true
}

// roomOfPeer returns the room of a peer h does not know yet: the one
// RoomOf names for its address, else the one its first datagram p asks
// for (roomOfHello). h.mu is held.
func (h *Multi[I]) roomOfPeer(from transport.Addr, p []byte) (r *roomMatch[I], refuse bool) {
	if h.opts.RoomOf != nil {
		if code := h.opts.RoomOf(from); code != "" {
			if r = h.rooms[code]; r == nil {
				h.noRoom++
				return nil, true
			}
			return r, false
		}
	}
	return h.roomOfHello(p)
}

// refuseNoRoom is the Refuse a hello for no room gets, made once: a flood
// of such hellos allocates nothing (sends copy it into their frame).
var refuseNoRoom = (&codec.Refuse{Reason: codec.ReasonNoRoom}).Append(nil)

// roomOfHello returns the room a peer's first datagram p asks for; with
// none, refuse says whether to answer rewind.ReasonNoRoom (a hello with a code
// no room has). h.mu is held.
func (h *Multi[I]) roomOfHello(p []byte) (r *roomMatch[I], refuse bool) {
	typ, _, err := codec.Peek(p)
	if err != nil || typ != codec.TypeHello {
		h.unrouted++
		return nil, false
	}
	hello, _, err := codec.ParseHello(p)
	if err != nil {
		h.unrouted++
		return nil, false
	}
	if !hello.HasRoom {
		if len(h.order) == 0 {
			h.noRoom++
			return nil, true
		}
		return h.order[0], false
	}
	n := len(hello.RoomCode()) // 6, or 7 to 12 (codec.Hello's long form)
	code := hello.Room         // upper-cased in a copy, as normalRoom does, without allocating
	for i, c := range code[:n] {
		if c >= 'a' && c <= 'z' {
			code[i] = c - 'a' + 'A'
		}
	}
	if r = h.rooms[string(code[:n])]; r == nil {
		h.noRoom++
		return nil, true
	}
	return r, false
}

// forget drops the routes of peers silent for longer than h.idle (their
// sessions are gone: the UDP idle timeout is shorter).
func (h *Multi[I]) forget(now time.Time) {
	limit := now.UnixNano() - int64(h.idle)
	h.mu.Lock()
	defer h.mu.Unlock()
	for a, rt := range h.byAddr {
		if rt.last < limit || rt.m.closed.Load() {
			h.dropRoute(a)
		}
	}
}

// send sends p to a peer on the shared Conn, outside any batch.
func (h *Multi[I]) send(to transport.Addr, p []byte) error {
	h.sendMu.Lock()
	defer h.sendMu.Unlock()
	return h.conn.Send(to, p)
}

// subConn is a room's view of the Multi's Conn: the datagrams routed
// to the room, and sends through the shared Conn (into the running
// worker's batch when it has one).
type subConn struct {
	parent interface {
		send(to transport.Addr, p []byte) error
	}
	conn  transport.Conn // the shared Conn (LocalAddr, Prove)
	batch transport.Batch

	mu         sync.Mutex
	slots      []subSlot
	head, size int
	ready      chan struct{}
}

type subSlot struct {
	from transport.Addr
	at   time.Time // when it was read from the shared Conn
	buf  []byte
}

var (
	_ transport.Conn    = (*subConn)(nil)
	_ transport.Stamped = (*subConn)(nil)
)

func newSubConn[I any](h *Multi[I], queue int) *subConn {
	return &subConn{parent: h, conn: h.conn, slots: make([]subSlot, queue), ready: make(chan struct{}, 1)}
}

// push queues a copy of p from from, read at at, and returns how many
// datagrams wait now, 0 if the queue was full. A slot's buffer is
// allocated when it is first too small, then reused.
func (c *subConn) push(from transport.Addr, p []byte, at time.Time) int {
	c.mu.Lock()
	if c.size == len(c.slots) {
		c.mu.Unlock()
		return 0
	}
	s := &c.slots[(c.head+c.size)%len(c.slots)]
	if cap(s.buf) < len(p) { // most datagrams of a player are small: grow to fit
		s.buf = make([]byte, 0, max(len(p), 128))
	}
	s.from, s.at, s.buf = from, at, append(s.buf[:0], p...)
	c.size++
	n := c.size
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
	return n
}

// Recv implements transport.Conn.
func (c *subConn) Recv(p []byte) (int, transport.Addr, error) {
	n, from, _, err := c.RecvStamped(p)
	return n, from, err
}

// RecvStamped implements transport.Stamped: a datagram's time is when the
// dispatcher read it from the shared Conn (it may have waited for its
// room's tick since).
func (c *subConn) RecvStamped(p []byte) (int, transport.Addr, time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.size == 0 {
		return 0, "", time.Time{}, transport.ErrWouldBlock
	}
	s := &c.slots[c.head]
	n, from, at := copy(p, s.buf), s.from, s.at
	c.head = (c.head + 1) % len(c.slots)
	c.size--
	return n, from, at, nil
}

// Send implements transport.Conn: into the running worker's batch, or
// straight through the shared Conn.
func (c *subConn) Send(to transport.Addr, p []byte) error {
	if c.batch != nil {
		return c.batch.Send(to, p)
	}
	return c.parent.send(to, p)
}

// Prove implements transport.Prover when the shared Conn does.
func (c *subConn) Prove(a transport.Addr) {
	if p, ok := c.conn.(transport.Prover); ok {
		p.Prove(a)
	}
}

// Ready implements transport.Conn: signaled when a datagram is queued
// (the Multi's dispatcher does not need it: it routes them).
func (c *subConn) Ready() <-chan struct{} { return c.ready }

// LocalAddr implements transport.Conn: the shared Conn's.
func (c *subConn) LocalAddr() transport.Addr { return c.conn.LocalAddr() }

// RemoteAddr implements transport.Conn: "" (a server has many peers).
func (c *subConn) RemoteAddr() transport.Addr { return "" }

// Close implements transport.Conn. The shared Conn stays open (the
// Multi closes it).
func (c *subConn) Close() error { return nil }

// errRoomUpdate wraps a room's failed update for the log.
func errRoomUpdate(code string, err error) error {
	return fmt.Errorf("rewind: room %s: %w", code, err)
}
