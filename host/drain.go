package host

import "time"

// drainedReadBuffer is the receive buffer ListenUDP asks for a drained
// socket (unless udp.Config.ReadBuffer says): what arrives between
// drains waits there, about 1 KB of the kernel's bookkeeping per small
// datagram, so 4 MiB holds some 4,000 (Linux grants at most
// net.core.rmem_max; serve logs what it got).
const drainedReadBuffer = 4 << 20

// drainGap is how long after a drain a worker about to run rooms drains
// the socket again: workers that take rooms one after the other within
// it share a drain.
const drainGap = 250 * time.Microsecond

// drainWait bounds how long a datagram waits in a drained socket when no
// room comes due to drain it: the socket is drained before rooms run
// (so at every tick phase that has a room due), and otherwise at the
// latest phase instant within drainWait of the last drain (at least the
// next phase), so that a hello, a handshake or a ping to a host whose
// phases are mostly empty (a few matches, or none started) waits a tick
// at most at 60 Hz. The pong takes the wait out of the ping (server
// pongHold), and every datagram carries its arrival time.
const drainWait = 17 * time.Millisecond

// drainBusy is how many datagrams a quarter tick (over the time since the
// drain before, at least a phase; a rate, whatever the phases) a drain
// must find for the socket to be drained again at the next phase whether
// or not a room is due then, for a tick: a socket that busy (a flood,
// many handshakes) is read every phase, so that its buffer does not fill
// and the drain just before a room's tick handles a phase's datagrams,
// not a tick's (bench flood at 1 match, ~46 flood datagrams a quarter
// tick: with one drain a tick, the room's ticks started 0.7 ms later at
// the median).
const drainBusy = 32

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
	since := s.h.TickPhase() // since the last drain, at least a phase
	if !s.lastDrain.IsZero() {
		since = max(now.Sub(s.lastDrain), since)
	}
	s.draining, s.lastDrain = true, now
	s.mu.Unlock()
	n := d.Drain()
	s.mu.Lock()
	s.draining = false
	if int64(n)*int64(s.h.period) >= drainBusy*4*int64(since) { // drainBusy a quarter tick, whatever the phases
		s.busyUntil = now.Add(s.h.period)
	}
	s.mu.Unlock()
	return true
}

// nextWakeLocked is when the leader should wake: the earliest room's
// deadline, or with a drained socket the drain that bounds a datagram's
// wait (drainDue) if sooner; false when no room waits for a deadline
// (then no worker leads: a datagram drained by the socket's own
// backstop, or a room opened, wakes one).
func (s *scheduler[I]) nextWakeLocked() (time.Time, bool) {
	if len(s.heap) == 0 {
		return time.Time{}, false
	}
	at := s.heap[0].deadline
	if s.h.drainer != nil {
		if r := s.drainDueLocked(); r.Before(at) {
			at = r
		}
	}
	return at, true
}

// drainDueLocked is when the socket must be drained though no room is
// due: if a drain within a tick before it found the socket busy
// (drainBusy a quarter tick), the phase instant a quarter tick after
// the last drain's (the next phase at 4 phases or fewer, every other one
// at 8: a busy socket is read 4 times a tick whatever the phases, as
// often as before there were 8), else the latest phase instant within
// drainWait of it (at least the next phase).
func (s *scheduler[I]) drainDueLocked() time.Time {
	h := s.h
	if s.lastDrain.IsZero() || s.lastDrain.Before(h.epoch) {
		return h.epoch
	}
	i := h.phaseIndex(s.lastDrain)
	if s.lastDrain.Before(s.busyUntil) {
		return h.phaseAt(i + max(int64(h.phases)/4, 1))
	}
	k := int64(1)
	for h.phaseAt(i+k+1).Sub(s.lastDrain) <= drainWait {
		k++
	}
	return h.phaseAt(i + k)
}
