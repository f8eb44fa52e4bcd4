package client

import (
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/world"
)

// core is the rollback machine, without the wire: GGRS's sync layer in
// rewind's terms. It holds the predicted world, a snapshot of every tick
// from the verified one to the predicted one, the inputs each predicted
// tick used, and the server's confirmed ticks not yet folded in.
//
// Tick t's slot in every ring is t & mask; the rings hold more slots than
// the prediction window, so a slot is never reused while its tick is still
// between verified and predicted.
type core[I any] struct {
	stepErr error // the game's Step failed (game.StepFailer)
	g       game.Game[I]
	w       *world.World
	me      game.PlayerID
	n       int // player slots
	size    int // bytes of one packed input
	mask    uint32
	unpack  func(src []byte, dst *I)

	snaps []world.Snapshot // world after tick t, hashed when first asked (hashOf)
	// hashes holds the hash of the world after tick t where it cannot
	// wait for hashOf: lockstep (no snapshots) and private scenes (the
	// view's hash is taken of the live world).
	hashes []uint64
	used   [][]byte // packed inputs tick t was simulated with, n×size
	own    [][]byte // our own packed input for tick t
	ownAt  []uint32 // the tick own[t&mask] belongs to

	conf      [][]byte       // confirmed packed inputs of tick t, n×size
	confEv    [][]game.Event // confirmed events of tick t
	confHash  []uint64       // the server's hash bits of tick t
	confBits  []uint8        // how many of the hash's low bits the server sent
	confThru  uint32         // confirmed ticks are contiguous up to here
	verified  uint32         // every tick up to here is folded in and checked
	predicted uint32         // the world is at this tick

	lastConf []byte // inputs of the verified tick (the guess for later ticks)
	presentV []bool // who is present after the verified tick
	present  []bool // scratch: presence while resimulating
	inputs   []byte // scratch: packed inputs of the tick being stepped
	zero     []byte // a zero packed input
	typed    []I    // scratch: inputs of the tick being stepped, for Step
	tk       game.Tick[I]

	fx effects // what each unverified tick's Step raised (effects.go)

	// broken is a verified tick whose hash differed after resimulation
	// (0: none): verification stops there until a repair (repairs on).
	broken  uint32
	repairs bool
	// lockstep: no snapshots, no guesses; process steps confirmed ticks
	// one at a time and checks each (lockstep.go).
	lockstep bool

	// hooks and counters
	onVerified func(tick uint32, hash uint64)
	onDesync   func(tick uint32, ours, theirs uint64)
	record     replay.Sink
	rollbacks  uint64
	rolledBack uint64 // ticks resimulated in all
	maxDepth   uint32
	desyncs    uint64
	steps      uint64
}

// newCore returns a rollback machine for player me whose world w is at
// tick 0 (as Setup left it), with rings of at least window+2 slots. Inputs
// are handled packed (inputSize bytes each, compared byte for byte) and
// unpacked into I only for Step.
func newCore[I any](g game.Game[I], w *world.World, me game.PlayerID, players, inputSize, window int, unpack func([]byte, *I)) *core[I] {
	slots := 1
	for slots < window+2 {
		slots <<= 1
	}
	c := &core[I]{
		g: g, w: w, me: me, n: players, size: inputSize, mask: uint32(slots - 1), unpack: unpack,
		snaps:    make([]world.Snapshot, slots),
		hashes:   make([]uint64, slots),
		used:     make([][]byte, slots),
		own:      make([][]byte, slots),
		ownAt:    make([]uint32, slots),
		conf:     make([][]byte, slots),
		confEv:   make([][]game.Event, slots),
		confHash: make([]uint64, slots),
		confBits: make([]uint8, slots),
		lastConf: make([]byte, players*inputSize),
		presentV: make([]bool, players),
		present:  make([]bool, players),
		inputs:   make([]byte, players*inputSize),
		zero:     make([]byte, inputSize),
		typed:    make([]I, players),
	}
	for i := range slots {
		c.used[i] = make([]byte, players*inputSize)
		c.conf[i] = make([]byte, players*inputSize)
		c.own[i] = make([]byte, inputSize)
	}
	c.save(0)
	return c
}

// in returns player p's packed input in a flat n×size slice.
func (c *core[I]) in(flat []byte, p int) []byte { return flat[p*c.size : (p+1)*c.size] }

// save snapshots the world as tick t. Its hash waits until hashOf asks
// for it (the snapshot hashes itself once, lazily): a tick simulated again
// and again in rollbacks is hashed at most once, when it is verified,
// not every time. A lockstep client (no snapshot) and one with private
// scenes (the hash of what this player sees, world.ViewHash, which is
// what the server sends it: docs/scenes.md) hash the live world now.
func (c *core[I]) save(t uint32) {
	if c.lockstep {
		c.hashes[t&c.mask] = c.hash()
		return
	}
	c.w.SnapshotInto(&c.snaps[t&c.mask])
	if c.w.Layout().HasScenes() {
		c.hashes[t&c.mask] = c.hash()
	}
}

// hashOf returns the hash of the world after tick t as the server sends
// it to this player; t must be in the rings (from verified to predicted).
func (c *core[I]) hashOf(t uint32) uint64 {
	if c.lockstep || c.w.Layout().HasScenes() {
		return c.hashes[t&c.mask]
	}
	return c.snaps[t&c.mask].Hash()
}

// hash returns the world's hash as the server sends it to this player.
func (c *core[I]) hash() uint64 {
	if c.w.Layout().HasScenes() {
		return c.w.ViewHash(c.w.ViewOf(int(c.me)))
	}
	return c.w.Hash()
}

// restore puts the world back to tick t, which must be in the ring.
func (c *core[I]) restore(t uint32) {
	if err := c.w.Restore(&c.snaps[t&c.mask]); err != nil {
		panic("client: restore of a world of another layout: " + err.Error())
	}
}

// setOwn records our own packed input for tick t.
func (c *core[I]) setOwn(t uint32, in []byte) {
	copy(c.own[t&c.mask], in)
	c.ownAt[t&c.mask] = t
}

// ownRef returns our packed input for tick t (aliasing the ring), or a
// zero input if none was recorded.
func (c *core[I]) ownRef(t uint32) []byte {
	if c.ownAt[t&c.mask] == t {
		return c.own[t&c.mask]
	}
	return c.zero
}

// ownInput copies our input for tick t into dst, or zeros if none was
// recorded (ticks before the first sample, with input delay).
func (c *core[I]) ownInput(dst []byte, t uint32) {
	if c.ownAt[t&c.mask] == t {
		copy(dst, c.own[t&c.mask])
		return
	}
	clear(dst)
}

// space returns how many more ticks may be confirmed before the rings
// would overrun unprocessed ticks.
func (c *core[I]) space() uint32 {
	return c.mask - (c.confThru - c.verified)
}

// confirm takes the server's tick confThru+1: its events, every player's
// packed input (n×size bytes, copied) and the low bits of its hash. Ticks
// must come in order, and only while the rings have space (the caller
// checks space and lets process fold the confirmed ticks in first): it
// never simulates.
func (c *core[I]) confirm(t uint32, events []game.Event, inputs []byte, hash uint64, bits uint8) {
	if t != c.confThru+1 {
		panic("client: confirm out of order")
	}
	if c.space() == 0 {
		panic("client: confirm with the rings full")
	}
	s := t & c.mask
	copy(c.conf[s], inputs)
	c.confEv[s] = append(c.confEv[s][:0], events...)
	c.confHash[s] = hash
	c.confBits[s] = bits
	c.confThru = t
}

// step runs tick u with c.inputs and c.present and snapshots the result.
func (c *core[I]) step(u uint32, events []game.Event) {
	for p := range c.typed {
		c.unpack(c.in(c.inputs, p), &c.typed[p])
	}
	c.tk.Number = u
	c.tk.Events = events
	c.tk.Inputs = c.typed
	c.tk.Present = c.present
	c.tk.CollectEffects(c.fx.begin(c.mask))
	c.g.Step(c.w, &c.tk)
	if f, ok := game.As[game.StepFailer](c.g); ok && c.stepErr == nil {
		c.stepErr = f.StepErr(c.w)
	}
	c.fx.stepped(u)
	c.steps++
	copy(c.used[u&c.mask], c.inputs)
	c.save(u)
}

// applyEvents updates presence for a tick's events.
func applyEvents(present []bool, events []game.Event) {
	for _, e := range events {
		if int(e.Player) >= len(present) {
			continue
		}
		present[e.Player] = e.Kind == game.Join
	}
}

// guess fills c.inputs with the prediction for tick u beyond what is
// confirmed: everybody repeats their last confirmed input, and we use our
// own.
func (c *core[I]) guess(u uint32) {
	for p := 0; p < c.n; p++ {
		dst := c.in(c.inputs, p)
		switch {
		case !c.present[p]:
			clear(dst)
		case p == int(c.me):
			c.ownInput(dst, u)
		default:
			copy(dst, c.in(c.lastConf, p))
		}
	}
}

// process folds the confirmed ticks into the world: it finds the first
// tick that went otherwise than guessed, rolls back to the tick before it
// and simulates again up to the predicted tick (or up to the last confirmed
// tick, when that is further on), then checks the hashes of the newly
// verified ticks.
func (c *core[I]) process() {
	if c.confThru == c.verified || c.broken != 0 {
		return
	}
	if c.lockstep {
		c.processLockstep()
		return
	}
	from := c.predicted + 1
	if first := c.firstWrong(); first != 0 {
		from = first
		c.restore(first - 1)
		depth := c.predicted - first + 1
		c.rollbacks++
		c.rolledBack += uint64(depth)
		c.maxDepth = max(c.maxDepth, depth)
	}
	// Presence at from-1: the ticks up to it went as guessed, so had no
	// events, and presence there is presence at verified.
	c.resimulate(from, max(c.predicted, c.confThru), c.presentV)
	c.verifyConfirmed()
}

// firstWrong returns the first confirmed tick that was predicted otherwise
// than it went (other inputs, or events), or 0 when every confirmed tick
// already simulated went as guessed.
func (c *core[I]) firstWrong() uint32 {
	for t := c.verified + 1; t <= c.confThru && t <= c.predicted; t++ {
		s := t & c.mask
		if len(c.confEv[s]) > 0 || string(c.used[s]) != string(c.conf[s]) {
			return t
		}
	}
	return 0
}

// resimulate steps ticks from..end from the world at tick from-1 (where
// the caller put it) and presence there (present), with the confirmed
// inputs and events of ticks up to confThru and the guess beyond, and
// makes end the predicted tick. The rings must still hold tick from-1.
func (c *core[I]) resimulate(from, end uint32, present []bool) {
	if from > end {
		return
	}
	copy(c.present, present)
	for u := from; u <= end; u++ {
		if u <= c.confThru {
			s := u & c.mask
			applyEvents(c.present, c.confEv[s])
			copy(c.inputs, c.conf[s])
			copy(c.lastConf, c.conf[s])
			c.step(u, c.confEv[s])
			continue
		}
		c.guess(u)
		c.step(u, nil)
	}
	c.predicted = end
}

// verifyConfirmed checks the hash of every confirmed tick after verified
// against the server's bits, reports it verified (or a desync), and
// advances verified: to confThru, or to the first desynced tick when the
// client repairs (which waits for the repair, fetch.go).
func (c *core[I]) verifyConfirmed() { c.verifyThrough(c.confThru) }

// verifyThrough is verifyConfirmed up to tick end (at most confThru).
func (c *core[I]) verifyThrough(end uint32) {
	for t := c.verified + 1; t <= end; t++ {
		s := t & c.mask
		applyEvents(c.presentV, c.confEv[s])
		ours, theirs, bits := c.hashOf(t), c.confHash[s], c.confBits[s]
		m := uint64(1)<<bits - 1
		if bits >= 64 {
			m = ^uint64(0)
		}
		if ours&m != theirs&m {
			c.desyncs++
			if c.onDesync != nil {
				c.onDesync(t, ours, theirs)
			}
			if c.repairs {
				// The client repairs this tick (fetch.go); the ticks
				// after it wait.
				c.broken = t
				copy(c.lastConf, c.conf[s])
				c.verified = t
				return
			}
		}
		c.fx.verify(t)
		if c.onVerified != nil {
			c.onVerified(t, ours)
		}
		c.recordTick(t)
	}
	copy(c.lastConf, c.conf[end&c.mask])
	c.verified = end
}

// processLockstep steps the confirmed ticks after the verified one, one at
// a time with the server's inputs and events, and checks each as it is
// stepped: the world is never ahead of what is verified, nothing is
// guessed, nothing rolled back. At a tick whose hash differs it stops
// there (the world at that tick) for the repair.
func (c *core[I]) processLockstep() {
	for c.verified < c.confThru && c.broken == 0 {
		u := c.verified + 1
		s := u & c.mask
		copy(c.present, c.presentV)
		applyEvents(c.present, c.confEv[s])
		copy(c.inputs, c.conf[s])
		c.step(u, c.confEv[s])
		c.predicted = u
		c.verifyThrough(u)
	}
}

// advance predicts tick predicted+1 with our input for it.
func (c *core[I]) advance() {
	u := c.predicted + 1
	copy(c.present, c.presentV)
	c.guess(u)
	c.step(u, nil)
	c.predicted = u
}

// verifiedHash returns the hash of the world at the verified tick.
func (c *core[I]) verifiedHash() uint64 { return c.hashOf(c.verified) }
