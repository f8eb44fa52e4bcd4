package host

import "time"

// drainedReadBuffer is the receive buffer ListenUDP asks for a drained
// socket (unless udp.Config.ReadBuffer says): what arrives in a phase
// waits there, about 1 KB of the kernel's bookkeeping per small
// datagram, so 4 MiB holds some 4,000 (Linux grants at most
// net.core.rmem_max; serve logs what it got).
const drainedReadBuffer = 4 << 20

// drainGap is how long after a drain a worker about to run rooms drains
// the socket again: workers that take rooms one after the other within
// it share a drain.
const drainGap = 250 * time.Microsecond

// drainNow drains the socket, if it waits to be drained
// (transport.Drainer) and no worker did within drainGap, before the
// calling worker takes rooms: what arrived since is then in the rooms'
// queues, and the rooms it made due (a ping, a hello) among those the
// worker takes. It reports whether it drained.
func (s *scheduler[I]) drainNow(now time.Time) bool {
	d := s.h.drainer
	if d == nil {
		return false
	}
	s.mu.Lock()
	if s.draining || (!s.lastDrain.IsZero() && now.Sub(s.lastDrain) < drainGap) {
		s.mu.Unlock()
		return false
	}
	s.draining, s.lastDrain = true, now
	s.mu.Unlock()
	d.Drain()
	s.mu.Lock()
	s.draining = false
	s.mu.Unlock()
	return true
}

// nextWakeLocked is when the leader should wake: the earliest room's
// deadline, or with a drained socket the next tick phase after the last
// drain if sooner; false when no room waits for a deadline (then no
// worker leads: a datagram drained by the socket's own backstop, or a
// room opened, wakes one).
func (s *scheduler[I]) nextWakeLocked() (time.Time, bool) {
	if len(s.heap) == 0 {
		return time.Time{}, false
	}
	at := s.heap[0].deadline
	if s.h.drainer != nil {
		if r := s.h.phaseAfter(s.lastDrain); r.Before(at) {
			at = r
		}
	}
	return at, true
}

// phaseAfter returns the first tick phase instant after t: one of
// h.phases instants a period, at the offsets tickPhases gives the
// matches' ticks (k·period/phases from epoch), so that a drain falls
// exactly when a phase's rooms come due.
func (h *Multi[I]) phaseAfter(t time.Time) time.Time {
	d := t.Sub(h.epoch)
	if t.IsZero() || d < 0 {
		return h.epoch
	}
	base, r := d-d%h.period, d%h.period
	n := time.Duration(h.phases)
	k := r * n / h.period
	for k*h.period/n <= r {
		k++
	}
	return h.epoch.Add(base + k*h.period/n)
}
