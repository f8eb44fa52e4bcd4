package transport

import "fmt"

var _ Batcher = (*MultiConn)(nil)

// NewBatch implements Batcher, so that a host over a MultiConn (a WebRTC
// host and a UDP socket, say) batches its UDP sends as it would over the
// socket alone: a datagram to a peer of a member that is a Batcher goes
// into a Batch of that member's, and Flush flushes them all; one to a
// peer of another member is sent at once through the member's Send
// (serialized with the MultiConn's Send and its other Batches, since a
// plain Conn takes one sender at a time).
func (m *MultiConn) NewBatch() Batch {
	b := &multiBatch{m: m, batches: make([]Batch, len(m.members))}
	for i, c := range m.members {
		if bc, ok := c.(Batcher); ok {
			b.batches[i] = bc.NewBatch()
		}
	}
	return b
}

// multiBatch is a MultiConn's Batch: a Batch per member that has them.
type multiBatch struct {
	m       *MultiConn
	batches []Batch // by member; nil for a member that is not a Batcher
}

// Send implements Batch.
func (b *multiBatch) Send(to Addr, p []byte) error {
	m := b.m
	if m.isClosed() {
		return fmt.Errorf("transport: multi send to %s: %w", to, ErrClosed)
	}
	i, addr, ok := SplitMultiAddr(to)
	if !ok || i >= len(m.members) {
		return fmt.Errorf("transport: multi send to %q: %w", to, ErrUnknownPeer)
	}
	if mb := b.batches[i]; mb != nil {
		return mb.Send(addr, p)
	}
	return m.sendMember(i, addr, p)
}

// Flush implements Batch: every member's Batch is flushed; the first
// error is returned.
func (b *multiBatch) Flush() error {
	var first error
	for i, mb := range b.batches {
		if mb == nil {
			continue
		}
		if err := mb.Flush(); err != nil && first == nil {
			first = fmt.Errorf("transport: multi member %d: %w", i, err)
		}
	}
	return first
}

// sendMember sends p to addr through member i: a Batcher directly (its
// Send is safe beside its Batches), another under sendMu.
func (m *MultiConn) sendMember(i int, addr Addr, p []byte) error {
	c := m.members[i]
	if _, ok := c.(Batcher); ok {
		return c.Send(addr, p)
	}
	m.sendMu.Lock()
	defer m.sendMu.Unlock()
	return c.Send(addr, p)
}
