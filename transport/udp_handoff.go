package transport

import "time"

// Handler takes a datagram as a server-side Conn's reader reads it: from
// is the peer's Addr, p its payload (valid during the call only), at when
// it was read (the Conn's Clock).
type Handler func(from Addr, p []byte, at time.Time)

// Handoff is implemented by a server-side Conn whose reader goroutine can
// hand each datagram to a Handler instead of queueing it for Recv
// (UDPServer). A consumer that routes datagrams elsewhere (a MultiHost,
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

var _ Handoff = (*UDPServer)(nil)

// SetHandler implements Handoff.
func (s *UDPServer) SetHandler(h Handler) {
	s.hmu.Lock() // waits for the batch being handled
	defer s.hmu.Unlock()
	s.handler = h
}
