package client

import (
	"fmt"

	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// SyncTest runs a game alone, in the spirit of GGRS's SyncTestSession:
// after every tick it rolls back Check ticks, simulates them again with the
// same inputs and events, and compares every resimulated tick's hash with
// the first one. A game that keeps state outside its world, reads the
// clock, iterates a map or otherwise steps differently the second time
// fails with ErrNotDeterministic, naming the tick.
type SyncTest[I any] struct {
	g      game.Game[I]
	w      *world.World
	it     *inputs.Type[I]
	check  uint32
	mask   uint32
	n      int
	tick   uint32
	snaps  []world.Snapshot
	hashes []uint64
	inputs [][]I
	events [][]game.Event
	pres   []bool
	tk     game.Tick[I]
	off    bool
	// Resimulated counts ticks simulated a second time.
	Resimulated uint64
}

// NewSyncTest sets up g's world for players players (all joining in tick 1)
// and checks every tick by rolling back check ticks (at least 1).
func NewSyncTest[I any](g game.Game[I], players, check int) (*SyncTest[I], error) {
	if players < 1 || players > game.MaxPlayers {
		return nil, fmt.Errorf("client: sync test with %d players: %w", players, ErrConfig)
	}
	check = max(check, 1)
	it, err := inputs.NewType[I]()
	if err != nil {
		return nil, fmt.Errorf("client: sync test input type: %w", err)
	}
	_, w, err := game.NewWorld(g, nil)
	if err != nil {
		return nil, fmt.Errorf("client: sync test %w", err)
	}
	slots := 1
	for slots < check+2 {
		slots <<= 1
	}
	st := &SyncTest[I]{
		g: g, w: w, it: it, check: uint32(check), mask: uint32(slots - 1), n: players,
		snaps:  make([]world.Snapshot, slots),
		hashes: make([]uint64, slots),
		inputs: make([][]I, slots),
		events: make([][]game.Event, slots),
		pres:   make([]bool, players),
	}
	for i := range st.inputs {
		st.inputs[i] = make([]I, players)
	}
	w.SnapshotInto(&st.snaps[0])
	st.hashes[0] = st.snaps[0].Hash()
	return st, nil
}

// SetChecking turns the rollback check after every tick on (the default)
// or off, for reaching an interesting state quickly.
func (s *SyncTest[I]) SetChecking(on bool) { s.off = !on }

// World returns the world at the current tick.
func (s *SyncTest[I]) World() *world.World { return s.w }

// Tick returns the last tick simulated.
func (s *SyncTest[I]) Tick() uint32 { return s.tick }

// Step runs the next tick with one input per player (sanitized like the
// server would), then checks determinism by rolling back and resimulating.
func (s *SyncTest[I]) Step(inputs []I) error {
	if len(inputs) != s.n {
		return fmt.Errorf("client: sync test step with %d inputs for %d players: %w", len(inputs), s.n, ErrConfig)
	}
	t := s.tick + 1
	slot := t & s.mask
	copy(s.inputs[slot], inputs)
	for p := range s.inputs[slot] {
		if err := s.it.SanitizeValue(&s.inputs[slot][p]); err != nil {
			return fmt.Errorf("client: sync test input of player %d: %w", p, err)
		}
	}
	s.events[slot] = s.events[slot][:0]
	if t == 1 {
		for p := range s.n {
			s.events[slot] = append(s.events[slot], game.Event{Kind: game.Join, Player: game.PlayerID(p)})
		}
	}
	s.run(t)
	s.tick = t
	s.hashes[slot] = s.snaps[slot].Hash()
	if t < s.check || s.off {
		return nil
	}
	from := t - s.check
	if err := s.w.Restore(&s.snaps[from&s.mask]); err != nil {
		return fmt.Errorf("client: sync test restore: %w", err)
	}
	for u := from + 1; u <= t; u++ {
		want := s.hashes[u&s.mask]
		s.run(u)
		s.Resimulated++
		if got := s.snaps[u&s.mask].Hash(); got != want {
			return fmt.Errorf("client: sync test: tick %d hashed %016x first and %016x when simulated again: %w", u, want, got, ErrNotDeterministic)
		}
	}
	return nil
}

// run steps tick u from the world as it is and snapshots the result.
func (s *SyncTest[I]) run(u uint32) {
	slot := u & s.mask
	applyEvents(s.pres, s.events[slot]) // only tick 1 has events
	s.tk.Number = u
	s.tk.Events = s.events[slot]
	s.tk.Inputs = s.inputs[slot]
	s.tk.Present = s.pres
	s.g.Step(s.w, &s.tk)
	s.w.SnapshotInto(&s.snaps[slot])
}
