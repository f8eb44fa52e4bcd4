package codec

import (
	"fmt"
	"io"
	"math/bits"

	"github.com/rewindnet/rewind/codec/inputs"
)

// MaxPlayers is the number of player ids (0..MaxPlayers-1).
const MaxPlayers = 64

// PlayerSet is a set of player ids: bit p is player p.
type PlayerSet uint64

// Has reports whether p is in the set.
func (s PlayerSet) Has(p uint8) bool { return p < MaxPlayers && s&(1<<p) != 0 }

// With returns the set with p added.
func (s PlayerSet) With(p uint8) PlayerSet { return s | 1<<p }

// Without returns the set with p removed.
func (s PlayerSet) Without(p uint8) PlayerSet { return s &^ (1 << p) }

// Len returns the number of players in the set.
func (s PlayerSet) Len() int { return bits.OnesCount64(uint64(s)) }

// EventKind is what happened to a player at a tick.
type EventKind uint8

// Event kinds.
const (
	EventJoin  EventKind = 0 // the player is present from this tick on, input all zero
	EventLeave EventKind = 1 // the player is gone from this tick on
)

// Event is a join or leave taking effect at a tick, before that tick's
// inputs are applied.
type Event struct {
	Kind   EventKind
	Player uint8
}

// MaxEvents is the most events one tick may carry.
const MaxEvents = 2 * MaxPlayers

// Tick is one decoded server tick (see TickDecoder).
type Tick struct {
	// Tick is the tick number.
	Tick uint32
	// Events are the joins and leaves at this tick, in order (Events[:0]
	// of the caller's slice is reused; it holds at most MaxEvents).
	Events []Event
	// Present is who is in the match at this tick (after the events).
	Present PlayerSet
	// Changed is whose input changed at this tick.
	Changed PlayerSet
	// Late is whose input did not arrive in time: the server repeated the
	// player's previous input (so it is not in Changed).
	Late PlayerSet
	// Hash holds the low HashBits bits of the world hash after this tick
	// (the other bits are zero).
	Hash uint64
}

// Roster is the inputs of a match as the tick stream codes them: who is
// present and each present player's inputs.State. The server's TickEncoder and
// each client's TickDecoder hold one and keep it in step; Welcome carries a
// snapshot of it.
type Roster struct {
	schema  *inputs.Schema
	present PlayerSet
	states  [MaxPlayers]inputs.State
}

// NewRoster returns an empty roster for inputs of schema s.
func NewRoster(s *inputs.Schema) *Roster { return &Roster{schema: s} }

// Schema returns the roster's schema.
func (r *Roster) Schema() *inputs.Schema { return r.schema }

// Present returns who is present.
func (r *Roster) Present() PlayerSet { return r.present }

// Input returns player p's current packed input (aliasing the roster), or
// nil if p is not present.
func (r *Roster) Input(p uint8) []byte {
	if !r.present.Has(p) {
		return nil
	}
	return r.states[p].Input()
}

// CopyFrom makes r a copy of o (same schema expected).
func (r *Roster) CopyFrom(o *Roster) {
	r.schema = o.schema
	r.present = o.present
	for s := uint64(o.present); s != 0; s &= s - 1 {
		p := bits.TrailingZeros64(s)
		r.states[p] = o.states[p]
	}
}

// join adds p with a zero input and a fresh context.
func (r *Roster) join(p uint8) {
	r.present = r.present.With(p)
	r.schema.ResetState(&r.states[p], nil)
}

// SnapshotLength returns the length of AppendSnapshot's output.
func (r *Roster) SnapshotLength() int {
	return 8 + r.present.Len()*r.schema.StateLen()
}

// AppendSnapshot appends the roster's state: the present set (uint64 LE),
// then for each present player in id order: the packed input; the four
// most recent sets of changed fields (uint32 LE each, latest first, 0 =
// none); per field the Exp-Golomb order, then per field the shift (one
// byte each); and the last change of every field in packed form (the
// difference for integers, the XOR for floats, 0 for bools).
func (r *Roster) AppendSnapshot(b []byte) []byte {
	b = appendU64(b, uint64(r.present))
	for s := uint64(r.present); s != 0; s &= s - 1 {
		b = r.schema.AppendState(b, &r.states[bits.TrailingZeros64(s)])
	}
	return b
}

// ParseSnapshot replaces r's state with the snapshot b (all of b). The
// inputs are sanitized; on error r is unchanged.
func (r *Roster) ParseSnapshot(b []byte) error {
	if len(b) < 8 {
		return io.ErrUnexpectedEOF
	}
	present := PlayerSet(readU64(b))
	s := r.schema
	per := s.StateLen()
	need := 8 + present.Len()*per
	if len(b) < need {
		return io.ErrUnexpectedEOF
	}
	if len(b) > need {
		return errMalformedf("roster snapshot has %d trailing bytes", len(b)-need)
	}
	// Validate everything first.
	for i := 0; i < present.Len(); i++ {
		if err := s.CheckState(b[8+i*per : 8+(i+1)*per]); err != nil {
			return fmt.Errorf("roster snapshot: %w", err)
		}
	}
	r.present = present
	i := 0
	for set := uint64(present); set != 0; set &= set - 1 {
		s.LoadState(&r.states[bits.TrailingZeros64(set)], b[8+i*per:8+(i+1)*per])
		i++
	}
	return nil
}
