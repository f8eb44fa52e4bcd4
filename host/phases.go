package host

import "time"

// The tick phases: h.phases instants a period, i·period/phases from
// h.epoch (instant i, counted from epoch's), rounded down to the
// nanosecond. With TickPhases > 0 every match's ticks fall on one of
// them (startPhase), and a drained socket is read at them.

// defaultTickPhases is Options.TickPhases' default: 8 instants a tick
// (2.08 ms apart at 60 Hz), so that at 100 matches a phase holds about 12
// rooms, one worker's run (workerRun), whose last tick leaves about
// 0.5 ms after the phase; at 4 phases, 25 rooms took two workers' runs
// one after the other and their last ticks left 1-2 ms late
// (docs/benchmarks.md, Fleet; the run log: `git show 157d286:docs/benchmarks.md`,
// *The rooms of a phase, fewer (issue 33)*).
const defaultTickPhases = 8

// phaseFill is how many started matches each even phase (of an even
// count of 8 or more) takes before the odd phases take any: up to 4 × phaseFill
// matches at the default 8 phases, the host wakes at 4 instants a tick,
// not 8 (each wake-up and drain costs tens of microseconds however few
// rooms it runs).
const phaseFill = 8

// startPhase is a room's server.Config.TickOrigin (with TickPhases > 0):
// its match, starting at now, takes the tick phase with the fewest
// started matches (of those, the latest at or before now), and tick 0 is
// that phase's latest instant at or before now, less than a period
// before it. The matches whose players' hellos were answered by one
// drain (a drained socket is read at the phases that have rooms due)
// start at one instant: this spreads them over the phases rather than
// putting them all on the phase of that drain.
func (h *Multi[I]) startPhase(r *roomMatch[I], now time.Time) time.Time {
	if now.Before(h.epoch) {
		return now
	}
	h.phaseMu.Lock()
	defer h.phaseMu.Unlock()
	h.releasePhaseLocked(r)
	n := int64(h.phases)
	i := h.phaseIndex(now)
	coarse := h.coarsePhasesLocked()
	best, found := i, false
	for j := i; j > i-n; j-- {
		p := phaseOf(j, n)
		if coarse && p%2 != 0 {
			continue
		}
		if !found || h.phaseRooms[p] < h.phaseRooms[phaseOf(best, n)] {
			best, found = j, true
		}
	}
	r.phase = phaseOf(best, n)
	h.phaseRooms[r.phase]++
	return h.phaseAt(best)
}

// coarsePhasesLocked reports whether a match starting now takes an even
// phase only: the count is even, 8 or more, and an even phase holds
// fewer than phaseFill started matches.
func (h *Multi[I]) coarsePhasesLocked() bool {
	if h.phases%2 != 0 || h.phases < 8 {
		return false
	}
	for p := 0; p < h.phases; p += 2 {
		if h.phaseRooms[p] < phaseFill {
			return true
		}
	}
	return false
}

// releasePhase gives back the phase r's match took (it ended, or the
// room closed).
func (h *Multi[I]) releasePhase(r *roomMatch[I]) {
	if h.phaseRooms == nil {
		return
	}
	h.phaseMu.Lock()
	h.releasePhaseLocked(r)
	h.phaseMu.Unlock()
}

func (h *Multi[I]) releasePhaseLocked(r *roomMatch[I]) {
	if r.phase >= 0 {
		h.phaseRooms[r.phase]--
		r.phase = -1
	}
}

// phaseOf returns the phase (0 to n-1) of instant i.
func phaseOf(i, n int64) int {
	return int(((i % n) + n) % n)
}

// phaseIndex returns the index of the last tick phase instant at or
// before t (t not before h.epoch).
func (h *Multi[I]) phaseIndex(t time.Time) int64 {
	d := t.Sub(h.epoch)
	n := int64(h.phases)
	i := int64(d/h.period)*n + int64(d%h.period)*n/int64(h.period)
	for !h.phaseAt(i + 1).After(t) {
		i++ // the instants are rounded down to the nanosecond
	}
	return i
}

// phaseAt returns tick phase instant i (phaseIndex; i may be negative:
// before epoch).
func (h *Multi[I]) phaseAt(i int64) time.Time {
	n := int64(h.phases)
	q, k := i/n, i%n
	if k < 0 {
		q, k = q-1, k+n
	}
	return h.epoch.Add(time.Duration(q)*h.period + time.Duration(k)*h.period/time.Duration(n))
}

// phaseAfter returns the first tick phase instant after t (epoch for t
// zero or before it).
func (h *Multi[I]) phaseAfter(t time.Time) time.Time {
	if t.IsZero() || t.Before(h.epoch) {
		return h.epoch
	}
	return h.phaseAt(h.phaseIndex(t) + 1)
}
