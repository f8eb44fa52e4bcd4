package relay

import "time"

// A relay that is itself stalled (a long GC pause, a machine starved of
// CPU, a suspended VM) runs neither its timer nor its readers. When it
// wakes, its hosts' pongs may still wait unread in their sockets, and by
// the wall clock every host has been silent for the whole stall: judged
// so, a stall longer than HostTimeout would take every room from its
// host. The hub judges its hosts by what they sent while it was running
// instead: a gap between two runs of its timer longer than stallAllowance
// counts as stallAllowance, and the rest (the relay's own stall) is added
// to every host's and match server's deadlines: the last pong, a claim's
// probe, an open waiting for its server's confirmation. A healthy host
// was silent at most PingInterval (and a round trip) before the stall,
// so with the defaults it has at least a second left once the relay
// wakes, and the relay pings it at once. A host that really went silent
// is still found out within HostTimeout of the relay's running time.
// Timers that are not about a host's liveness (a joiner's JoinTimeout,
// an idle connection, an unused room) keep the wall clock.

// stallAllowance is how much of one gap between timer runs counts
// against hosts: the larger of TickInterval and PingInterval (1 s by
// default), so that a timer late under load is not taken for a stall.
func (h *roomHub) stallAllowance() time.Duration {
	return max(h.cfg.TickInterval, h.cfg.PingInterval)
}

// forgiveStall moves the hosts' liveness deadlines later by the part of
// the gap since the last tick beyond stallAllowance. h.mu is held.
func (h *roomHub) forgiveStall(now time.Time) {
	last := h.lastTick
	h.lastTick = now
	if last.IsZero() {
		return
	}
	shift := now.Sub(last) - h.stallAllowance()
	if shift <= 0 {
		return
	}
	h.stats.stalls++
	h.stats.stalled += shift
	later := func(t time.Time) time.Time {
		if t.IsZero() {
			return t
		}
		if t = t.Add(shift); t.After(now) {
			return now
		}
		return t
	}
	for _, r := range h.rooms {
		r.lastPong = later(r.lastPong)
		if len(r.claims) > 0 {
			r.probeAt = later(r.probeAt)
		}
		if r.opening {
			r.openedAt = later(r.openedAt)
		}
	}
	for _, c := range h.conns {
		if c.role == roleServer && c.srv != nil {
			c.srv.lastPong = later(c.srv.lastPong)
		}
	}
	h.cfg.Log.Warn("relay: stalled: the stall is not counted against hosts", "gap", now.Sub(last), "forgiven", shift)
}
