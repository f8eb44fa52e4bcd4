package host

import "time"

// fineLead is how long before a deadline the leading worker of a host
// that wakes finely (Multi.fineSleep) has its Go timer fire. The
// runtime's timers on Linux wake in whole milliseconds (its poller waits
// with epoll_wait's millisecond timeout, and a timer less than a
// millisecond away waits a whole one), so a timer set for the deadline
// fires up to a millisecond after it; set a millisecond early, it fires
// within the millisecond before, and the rest is slept to the deadline
// by fineSleep (docs/benchmarks.md, Fleet; the run log: `git show 157d286:docs/benchmarks.md`,
// *Drained bots and fine tick wake-ups*).
const fineLead = time.Millisecond

// fineWait is, for a leader whose deadline is wait away, how long its Go
// timer waits and when the deadline falls by the wall clock (zero: the
// host does not wake finely, the timer waits the whole wait).
func (s *scheduler[I]) fineWait(wait time.Duration) (time.Duration, time.Time) {
	if s.h.fineSleep == nil || wait < 0 {
		return wait, time.Time{}
	}
	return max(wait-fineLead, 0), time.Now().Add(wait)
}

// fineRest sleeps from the Go timer's firing to the deadline at (if not
// zero and still ahead): at most fineLead and the timer's own lateness.
// A worker that sleeps here cannot be woken early: a datagram that
// wants an answer at once waits that much more.
func (s *scheduler[I]) fineRest(at time.Time) {
	if at.IsZero() {
		return
	}
	if rest := time.Until(at); rest > 0 {
		s.h.fineSleep(rest)
	}
}
