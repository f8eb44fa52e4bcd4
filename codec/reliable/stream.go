package reliable

import "time"

// StreamWindow is how many messages of a Stream are in flight at once
// (and how far past the next one a receiver keeps messages that came
// early): the 64 an Ack's mask covers. Messages queued past them wait.
const StreamWindow = 64

// Stream is one direction of an ordered, reliable stream of small
// messages over datagrams: the sending half numbers the messages queued
// and, through a Resender, sends every unacknowledged one again until the
// peer's Ack covers it; the receiving half keeps what came early and
// hands the messages on in order, each once. A state machine: time comes
// in as now.
type Stream struct {
	limit  int // the most messages queued
	res    *Resender
	queued [][]byte // messages from res.Base() on, in order
	first  uint32   // the number of queued[0]

	win     RecvWindow
	next    uint32            // the next number to hand on
	early   map[uint32][]byte // messages that came before next's
	ackOwed bool
}

// NewStream returns a stream whose first message, each way, is 1, which
// queues at most limit messages not yet acknowledged (at least
// StreamWindow).
func NewStream(limit int) *Stream {
	s := &Stream{limit: max(limit, StreamWindow), res: NewResender(ResendConfig{}, 1), first: 1, next: 1, early: map[uint32][]byte{}}
	s.win.Reset(1)
	return s
}

// Push queues a message (copied) and reports false when the stream's
// limit of messages are already queued unacknowledged.
func (s *Stream) Push(msg []byte) bool {
	if len(s.queued) >= s.limit {
		return false
	}
	s.queued = append(s.queued, append([]byte(nil), msg...))
	return true
}

// Queued returns how many messages wait for the peer's Ack.
func (s *Stream) Queued() int { return len(s.queued) }

// OnAck takes the peer's Ack of our messages.
func (s *Stream) OnAck(a Ack, now time.Time) {
	s.res.OnAck(a, now)
	for len(s.queued) > 0 && s.res.Acked(s.first) {
		s.queued[0] = nil
		s.queued = s.queued[1:]
		s.first++
	}
}

// Unacked calls fn with every message in flight (the first StreamWindow
// queued) not yet acknowledged, oldest first, with its number, while fn
// returns true, and records each as sent at now.
func (s *Stream) Unacked(now time.Time, fn func(seq uint32, msg []byte) bool) {
	for i, m := range s.queued[:min(len(s.queued), StreamWindow)] {
		seq := s.first + uint32(i)
		if s.res.Acked(seq) {
			continue
		}
		if !fn(seq, m) {
			return
		}
		s.res.Sent(seq, now)
	}
}

// Receive takes message seq from the peer and calls deliver with every
// message now in order, each once. Messages further than StreamWindow
// ahead are dropped (the peer sends them again).
func (s *Stream) Receive(seq uint32, msg []byte, deliver func(msg []byte)) {
	d := seq - s.next
	if int32(d) < 0 || d >= StreamWindow {
		s.ackOwed = true // a resend of what we hold: say so again
		return
	}
	if !s.win.Add(seq) {
		s.ackOwed = true
		return
	}
	s.ackOwed = true
	s.early[seq] = append([]byte(nil), msg...)
	for {
		m, ok := s.early[s.next]
		if !ok {
			return
		}
		delete(s.early, s.next)
		s.next++
		deliver(m)
	}
}

// Ack returns our Ack of the peer's messages and clears AckOwed.
func (s *Stream) Ack() Ack {
	s.ackOwed = false
	return s.win.Ack()
}

// AckOwed reports whether messages came since the last Ack was taken.
func (s *Stream) AckOwed() bool { return s.ackOwed }
