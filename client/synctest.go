package client

import (
	"fmt"

	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// SyncTest runs a game alone, in the spirit of GGRS's SyncTestSession, on
// the client's own rollback machine: the same rings, restore, guesses,
// presence and effects code a Client runs in a match. Each tick the
// machine first predicts (player 0 is its own player; the others' inputs
// are guessed as a client guesses them), then the sync test confirms the
// tick's real inputs and events as a server would, and the machine rolls
// back and resimulates if it guessed wrong, and verifies. Then the sync
// test rolls the machine back check ticks and has it simulate them again
// (core.resimulate, the code of every rollback) with the same inputs, and
// compares each tick's hash with the one it had before. A game that keeps
// state outside its world, reads the clock, iterates a map or otherwise
// steps differently the second time fails with ErrNotDeterministic, naming
// the first tick that differed (also in FirstDiff).
//
// Every player joins in tick 1.
type SyncTest[I any] struct {
	c     *core[I]
	it    *inputs.Type[I]
	check uint32
	n     int
	size  int
	mask  uint32
	real  [][]byte         // the inputs of tick t, packed, n×size: what the "server" confirms
	ev    [][]game.Event   // the events of tick t
	pres  [][]bool         // presence after tick t
	prev  []uint64         // scratch: hashes of the rechecked ticks before the recheck
	san   []I              // scratch: sanitized inputs
	fx    []EffectEvent    // scratch: the effects queue, drained every tick
	first []world.Snapshot // the rechecked ticks' snapshots of their first simulation
	off   bool
	// Resimulated counts ticks simulated again by the check after every
	// tick (the rollbacks of the machine itself, on a wrong guess, are
	// not counted).
	Resimulated uint64
	// FirstDiff is the first tick whose second simulation hashed
	// otherwise than its first (0 while none has).
	FirstDiff uint32
	// Differences are the first differences (up to MaxDifferences)
	// between the world of FirstDiff as first simulated (A, labelled
	// "first") and as simulated again (B, "again"), field by field.
	Differences []world.Difference
}

// MaxDifferences is how many differences SyncTest keeps (and the desync
// debugger logs) of a world that differs.
const MaxDifferences = 20

// NewSyncTest sets up g's world for players players (all joining in tick 1)
// and checks every tick by rolling back check ticks (at least 1).
func NewSyncTest[I any](g game.Game[I], players, check int) (*SyncTest[I], error) {
	if players < 1 || players > game.MaxPlayers {
		return nil, fmt.Errorf("client: sync test with %d players: %w", players, ErrConfig)
	}
	check = max(check, 1)
	it, err := inputs.TypeOf[I](g)
	if err != nil {
		return nil, fmt.Errorf("client: sync test input type: %w", err)
	}
	_, w, err := game.NewWorld(g, nil)
	if err != nil {
		return nil, fmt.Errorf("client: sync test %w", err)
	}
	c := newCore(g, w, 0, players, it.Size(), check+1, it.Unpack)
	st := &SyncTest[I]{
		c: c, it: it, check: uint32(check), n: players, size: it.Size(), mask: c.mask,
		real:  make([][]byte, c.mask+1),
		ev:    make([][]game.Event, c.mask+1),
		pres:  make([][]bool, c.mask+1),
		prev:  make([]uint64, c.mask+1),
		first: make([]world.Snapshot, c.mask+1),
		san:   make([]I, players),
	}
	for i := range st.real {
		st.real[i] = make([]byte, players*it.Size())
		st.pres[i] = make([]bool, players)
	}
	return st, nil
}

// SetChecking turns the rollback check after every tick on (the default)
// or off, for reaching an interesting state quickly. The machine's own
// prediction, rollbacks and verification go on either way.
func (s *SyncTest[I]) SetChecking(on bool) { s.off = !on }

// World returns the world at the current tick.
func (s *SyncTest[I]) World() *world.World { return s.c.w }

// Tick returns the last tick simulated.
func (s *SyncTest[I]) Tick() uint32 { return s.c.predicted }

// Step runs the next tick with one input per player (sanitized like the
// server would), then checks determinism by rolling back and resimulating.
// After an error the SyncTest is not to be stepped again.
func (s *SyncTest[I]) Step(in []I) error {
	if len(in) != s.n {
		return fmt.Errorf("client: sync test step with %d inputs for %d players: %w", len(in), s.n, ErrConfig)
	}
	c := s.c
	t := c.predicted + 1
	slot := t & s.mask
	copy(s.san, in)
	for p := range s.san {
		if err := s.it.SanitizeValue(&s.san[p]); err != nil {
			return fmt.Errorf("client: sync test input of player %d: %w", p, err)
		}
		s.it.Pack(s.real[slot][p*s.size:], &s.san[p])
	}
	s.ev[slot] = s.ev[slot][:0]
	if t == 1 {
		for p := range s.n {
			s.ev[slot] = append(s.ev[slot], game.Event{Kind: game.Join, Player: game.PlayerID(p)})
		}
	}
	copy(s.pres[slot], s.pres[(t-1)&s.mask])
	applyEvents(s.pres[slot], s.ev[slot])
	// Predict tick t as a client would: our own input, guesses for the
	// others; then confirm it, and the machine rolls back if it guessed
	// wrong.
	c.setOwn(t, s.real[slot][:s.size])
	c.advance()
	c.confirm(t, s.ev[slot], s.real[slot], 0, 0)
	c.process()
	s.fx = c.fx.drain(s.fx[:0])
	if s.off {
		return nil
	}
	return s.recheck()
}

// Rollback rolls the machine back check ticks (to tick 0 at most) and has
// it simulate them again with their inputs and events, as a client rolls
// back when a guess was wrong: the world restored, then each tick stepped
// and snapshotted, and none hashed (a client hashes a tick once, when it
// verifies it). It checks nothing: it is for measuring what a rollback
// costs (games/sand's BenchmarkRollback60; Step with checking off is a
// client's predicted and verified tick).
func (s *SyncTest[I]) Rollback() {
	from := s.from()
	s.c.restore(from - 1)
	s.c.resimulate(from, s.c.predicted, s.pres[(from-1)&s.mask])
}

// from returns the first of the last check ticks (tick 1 at most).
func (s *SyncTest[I]) from() uint32 {
	if p := s.c.predicted; p > s.check {
		return p - s.check + 1
	}
	return 1
}

// recheck rolls the machine back check ticks (to tick 0 at most) and has
// it simulate them again with their confirmed inputs and events; each tick
// must hash as it did before.
func (s *SyncTest[I]) recheck() error {
	c := s.c
	from := s.from()
	for u := from; u <= c.predicted; u++ {
		s.prev[u&s.mask] = c.hashOf(u)
		// Keep the first simulation's snapshot (no copy: the ring takes
		// the spare's buffers for the second).
		s.first[u&s.mask], c.snaps[u&s.mask] = c.snaps[u&s.mask], s.first[u&s.mask]
	}
	c.restore(from - 1)
	c.resimulate(from, c.predicted, s.pres[(from-1)&s.mask])
	for u := from; u <= c.predicted; u++ {
		s.Resimulated++
		if want, got := s.prev[u&s.mask], c.hashOf(u); got != want {
			s.FirstDiff = u
			s.diff(u)
			first := ""
			if len(s.Differences) > 0 {
				first = " (" + s.Differences[0].Format("first", "again") + ")"
			}
			return fmt.Errorf("client: sync test: tick %d hashed %016x first and %016x when simulated again%s: %w", u, want, got, first, ErrNotDeterministic)
		}
	}
	return nil
}

// diff fills Differences with how tick u's world differed between its
// two simulations.
func (s *SyncTest[I]) diff(u uint32) {
	l := s.c.w.Layout()
	a, b := world.NewFromLayout(l), world.NewFromLayout(l)
	if a.Restore(&s.first[u&s.mask]) != nil || b.Restore(&s.c.snaps[u&s.mask]) != nil {
		return
	}
	s.Differences, _, _ = world.Diff(a, b, MaxDifferences)
}
