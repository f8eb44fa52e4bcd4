package client

import (
	"slices"

	"github.com/rewindnet/rewind/game"
)

// Rollback-safe effects (game.Effect, raised by Tick.Emit during Step).
//
// The client keeps, for every tick from the verified one to the predicted
// one, the effects its last simulation of the tick raised (a ring beside
// the snapshots, same slots). Each time a tick is stepped (predicted, or
// simulated again after a rollback) what it raised now is compared with
// what it raised before, as multisets: an effect raised before and not now
// is reported cancelled, one raised now and not before is reported
// predicted, and the others are not reported again. When the tick is
// verified, its effects are reported verified. So every effect a view is
// told about is predicted once, then either cancelled or verified once,
// however often its tick is simulated:
//
//	predicted ──► verified
//	    └───────► cancelled
//
// A verified tick's effects are final: a tick stepped again after it was
// verified reports nothing. A tick whose slot is needed for a later tick
// before it was verified (a world transfer skipped it) has its effects
// cancelled; so has every open prediction when the client is moved to a
// newer tick's world (a rebase), and the events the view has not read yet
// are kept for it.
//
// The events wait in a queue for the view (Client.Effects), at most
// EffectQueue of them: when the view does not drain it, the oldest go
// first, counted by EffectsDropped.

// EffectStatus says what an EffectEvent tells a view about an effect.
type EffectStatus uint8

const (
	// EffectPredicted: the effect appeared in a prediction of its tick, for
	// the first time (play the sound, start the particles).
	EffectPredicted EffectStatus = 1
	// EffectCancelled: a rollback took a predicted effect back; its tick
	// went otherwise (stop or hide what it started, if that matters).
	EffectCancelled EffectStatus = 2
	// EffectVerified: the server's tick confirmed the effect (print the
	// "player died" line that must never be wrong).
	EffectVerified EffectStatus = 3
)

// String returns "predicted", "cancelled" or "verified".
func (s EffectStatus) String() string {
	switch s {
	case EffectPredicted:
		return "predicted"
	case EffectCancelled:
		return "cancelled"
	case EffectVerified:
		return "verified"
	}
	return "unknown"
}

// EffectEvent tells a view about one effect of one tick.
type EffectEvent struct {
	Status EffectStatus
	// Tick is the tick whose Step raised the effect.
	Tick   uint32
	Effect game.Effect
}

// EffectQueue is how many effect events wait for Client.Effects at most.
const EffectQueue = 4096

// Effects appends to dst every effect event since the last call, oldest
// first, and returns it. With a dst of enough capacity it does not
// allocate.
func (c *Client[I]) Effects(dst []EffectEvent) []EffectEvent {
	if c.core == nil {
		return dst
	}
	return c.core.fx.drain(dst)
}

// EffectsDropped returns how many effect events were dropped, oldest
// first, because more than EffectQueue waited for Effects.
func (c *Client[I]) EffectsDropped() uint64 {
	if c.core == nil {
		return 0
	}
	return c.core.fx.dropped
}

// Slot states of the effects ring.
const (
	fxNone     uint8 = iota // nothing reported for the slot's tick
	fxOpen                  // reported predicted, not yet verified
	fxVerified              // reported verified: final
)

// effects is the client's effect bookkeeping: the ring of every unverified
// tick's effects and the queue of events for the view.
type effects struct {
	mask    uint32
	ring    [][]game.Effect // effects of tick at[s], as last simulated
	at      []uint32
	state   []uint8
	step    []game.Effect // what the Step being run raises
	matched []bool        // scratch of diff
	sortA   []game.Effect // scratch of diffSorted
	sortB   []game.Effect

	q       []EffectEvent // ring of events, q[head] the oldest
	head, n int
	dropped uint64
}

// begin readies for a Step and returns where its effects go.
func (e *effects) begin(mask uint32) *[]game.Effect {
	if e.ring == nil {
		e.mask = mask
		e.ring = make([][]game.Effect, mask+1)
		e.at = make([]uint32, mask+1)
		e.state = make([]uint8, mask+1)
	}
	e.step = e.step[:0]
	return &e.step
}

// stepped takes what the Step of tick u raised (e.step) and reports the
// difference from what u raised before.
func (e *effects) stepped(u uint32) {
	s := u & e.mask
	if e.at[s] == u && e.state[s] == fxVerified {
		return // final
	}
	old := e.ring[s]
	if e.at[s] != u || e.state[s] == fxNone {
		if e.state[s] == fxOpen {
			e.pushAll(EffectCancelled, e.at[s], old) // never verified
		}
		old = old[:0]
	}
	e.diff(u, old, e.step)
	e.ring[s] = append(old[:0], e.step...)
	e.at[s] = u
	e.state[s] = fxOpen
}

// diff reports old minus now as cancelled, then now minus old as
// predicted (multisets: a repeated effect counts as many times as raised).
func (e *effects) diff(u uint32, old, now []game.Effect) {
	i := 0
	for i < len(old) && i < len(now) && old[i] == now[i] {
		i++
	}
	old, now = old[i:], now[i:]
	if len(old) == 0 && len(now) == 0 {
		return
	}
	if len(old)*len(now) > diffQuadratic {
		e.diffSorted(u, old, now)
		return
	}
	e.diffSearch(u, old, now)
}

// diffSearch is diff for a few effects: each old one searched for among
// the new ones. Events come in raised order.
func (e *effects) diffSearch(u uint32, old, now []game.Effect) {
	e.matched = slices.Grow(e.matched[:0], len(now))[:len(now)]
	clear(e.matched)
	for _, o := range old {
		found := false
		for j, x := range now {
			if !e.matched[j] && x == o {
				e.matched[j], found = true, true
				break
			}
		}
		if !found {
			e.push(EffectCancelled, u, o)
		}
	}
	for j, x := range now {
		if !e.matched[j] {
			e.push(EffectPredicted, u, x)
		}
	}
}

// diffQuadratic is the size (old × now effects past their common
// prefix) above which diff sorts rather than searches.
const diffQuadratic = 256

// diffSorted is diff for many effects: both sides sorted (copies), then
// walked together. Events come in sorted order rather than raised order.
func (e *effects) diffSorted(u uint32, old, now []game.Effect) {
	a := append(e.sortA[:0], old...)
	b := append(e.sortB[:0], now...)
	slices.SortFunc(a, compareEffects)
	slices.SortFunc(b, compareEffects)
	e.sortA, e.sortB = a, b
	for pass, st := range [2]EffectStatus{EffectCancelled, EffectPredicted} {
		i, j := 0, 0
		for i < len(a) || j < len(b) {
			c := 0
			switch {
			case i == len(a):
				c = 1
			case j == len(b):
				c = -1
			default:
				c = compareEffects(a[i], b[j])
			}
			switch {
			case c == 0:
				i++
				j++
			case c < 0: // only in old
				if pass == 0 {
					e.push(st, u, a[i])
				}
				i++
			default: // only in now
				if pass == 1 {
					e.push(st, u, b[j])
				}
				j++
			}
		}
	}
}

func compareEffects(x, y game.Effect) int {
	if x.Kind != y.Kind {
		return int(x.Kind) - int(y.Kind)
	}
	for k := range x.Args {
		if x.Args[k] != y.Args[k] {
			if x.Args[k] < y.Args[k] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// verify reports tick t's effects verified.
func (e *effects) verify(t uint32) {
	if e.ring == nil {
		return
	}
	s := t & e.mask
	if e.at[s] != t {
		if e.state[s] == fxOpen {
			e.pushAll(EffectCancelled, e.at[s], e.ring[s]) // never verified
		}
		e.state[s] = fxNone
		return
	}
	if e.state[s] == fxOpen {
		e.pushAll(EffectVerified, t, e.ring[s])
		e.state[s] = fxVerified
	}
}

// discard cancels the effects of every unverified tick after t: for a
// client whose predictions past t are thrown away without being simulated
// again (a world put in place of its own).
func (e *effects) discard(t uint32) {
	for s := range e.state {
		if e.state[s] == fxOpen && e.at[s] > t {
			e.pushAll(EffectCancelled, e.at[s], e.ring[s])
			e.state[s] = fxNone
		}
	}
}

// takeQueue takes over the events that from queued and were not drained,
// and its count of dropped events: for a new rollback machine replacing
// the one from belonged to.
func (e *effects) takeQueue(from *effects) {
	e.q, e.head, e.n, e.dropped = from.q, from.head, from.n, from.dropped
	from.q, from.head, from.n = nil, 0, 0
}

func (e *effects) pushAll(st EffectStatus, t uint32, fx []game.Effect) {
	for _, x := range fx {
		e.push(st, t, x)
	}
}

// push queues an event, dropping the oldest when EffectQueue wait.
func (e *effects) push(st EffectStatus, t uint32, x game.Effect) {
	if e.n == len(e.q) {
		if len(e.q) < EffectQueue {
			q := make([]EffectEvent, min(max(2*len(e.q), 64), EffectQueue))
			n := len(e.drain(q[:0]))
			e.q, e.head, e.n = q, 0, n
		} else {
			e.head = (e.head + 1) % len(e.q)
			e.n--
			e.dropped++
		}
	}
	e.q[(e.head+e.n)%len(e.q)] = EffectEvent{Status: st, Tick: t, Effect: x}
	e.n++
}

// drain appends the queued events to dst, oldest first, and empties the
// queue.
func (e *effects) drain(dst []EffectEvent) []EffectEvent {
	for e.n > 0 {
		dst = append(dst, e.q[e.head])
		e.head = (e.head + 1) % len(e.q)
		e.n--
	}
	e.head = 0
	return dst
}
