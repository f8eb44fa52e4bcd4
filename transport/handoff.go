package transport

import "time"

// Handler takes a datagram as a server-side Conn's reader reads it: from
// is the peer's Addr, p its payload (valid during the call only), at when
// it was read (the Conn's Clock).
type Handler func(from Addr, p []byte, at time.Time)

// Handoff is implemented by a server-side Conn whose reader goroutine can
// hand each datagram to a Handler instead of queueing it for Recv
// (udp.Server). A consumer that routes datagrams elsewhere (a host.Multi,
// to its rooms' queues) saves the queue's copy and, more, waking a
// goroutine of its own for every batch read: the reader does the routing.
type Handoff interface {
	// SetHandler has the reader call h, on its goroutine, for every
	// datagram of a session from now on, in place of queueing it; nil
	// queues them again. It returns once the reader no longer runs the
	// handler it replaces. Recv still returns what was queued before,
	// and still ends idle sessions.
	SetHandler(h Handler)
}

// Prover is implemented by a server-side Conn that tells proven peers from
// unproven ones: udp.Server, and MultiConn when its member does. A match
// calls Prove once it admitted the peer's player (its hello was a real
// match hello of the right game), so that the transport's caps for the
// unproven (udp.Config.MaxUnprovenPerIP, UnprovenTimeout) no longer apply
// to that peer.
type Prover interface {
	// Prove marks the session of peer a as proven; an unknown peer is
	// ignored.
	Prove(a Addr)
}

// Prove implements Prover for the member that a belongs to, if it is one.
func (m *MultiConn) Prove(a Addr) {
	i, addr, ok := SplitMultiAddr(a)
	if !ok || i >= len(m.members) {
		return
	}
	if p, ok := m.members[i].(Prover); ok {
		p.Prove(addr)
	}
}

// Drainer is implemented by a server-side Conn whose socket can wait
// unread until its owner drains it (udp.Server with Config.Drained): no
// thread wakes for a datagram that arrives meanwhile. A host that runs
// matches at shared tick phases drains it as each phase comes due, so
// that a phase costs one wake-up and a few system calls, not a wake-up
// per datagram.
type Drainer interface {
	// Draining reports whether the socket waits for Drain; if false,
	// the Conn reads it as datagrams arrive and Drain does nothing.
	Draining() bool
	// Drain reads the datagrams waiting now, without waiting for more,
	// and hands each to the Handler (Handoff) or queues it for Recv, in
	// the order they arrived, with the time each arrived. It returns
	// how many it read.
	Drain() int
}
