package codec

import (
	"io"
	"math/bits"
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
// present and each present player's InputState. The server's TickEncoder and
// each client's TickDecoder hold one and keep it in step; Welcome carries a
// snapshot of it.
type Roster struct {
	schema  *Schema
	present PlayerSet
	states  [MaxPlayers]InputState
}

// NewRoster returns an empty roster for inputs of schema s.
func NewRoster(s *Schema) *Roster { return &Roster{schema: s} }

// Schema returns the roster's schema.
func (r *Roster) Schema() *Schema { return r.schema }

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

// snapshotPer is the snapshot bytes of one player.
func (s *Schema) snapshotPer() int { return 2*s.size + 4*mruLen + 2*len(s.fields) }

// SnapshotLength returns the length of AppendSnapshot's output.
func (r *Roster) SnapshotLength() int {
	return 8 + r.present.Len()*r.schema.snapshotPer()
}

// AppendSnapshot appends the roster's state: the present set (uint64 LE),
// then for each present player in id order: the packed input; the four
// most recent sets of changed fields (uint32 LE each, latest first, 0 =
// none); per field the Exp-Golomb order, then per field the shift (one
// byte each); and the last change of every field in packed form (the
// difference for integers, the XOR for floats, 0 for bools).
func (r *Roster) AppendSnapshot(b []byte) []byte {
	b = appendU64(b, uint64(r.present))
	nf := len(r.schema.fields)
	for s := uint64(r.present); s != 0; s &= s - 1 {
		st := &r.states[bits.TrailingZeros64(s)]
		b = append(b, st.Input()...)
		for _, m := range st.mru {
			b = appendU32(b, m)
		}
		b = append(b, st.k[:nf]...)
		b = append(b, st.sh[:nf]...)
		b = append(b, st.ld[:r.schema.size]...)
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
	nf := len(s.fields)
	per := s.snapshotPer()
	ctx := s.size + 4*mruLen // offset of k
	need := 8 + present.Len()*per
	if len(b) < need {
		return io.ErrUnexpectedEOF
	}
	if len(b) > need {
		return errMalformedf("roster snapshot has %d trailing bytes", len(b)-need)
	}
	var tmp InputState
	// Validate everything first.
	for i := 0; i < present.Len(); i++ {
		e := b[8+i*per : 8+(i+1)*per]
		s.ResetState(&tmp, e[:s.size])
		if err := s.Sanitize(tmp.in[:s.size]); err != nil {
			return err
		}
		if string(tmp.in[:s.size]) != string(e[:s.size]) {
			return errMalformedf("roster snapshot input not canonical")
		}
		// Recent field sets: nonzero, distinct, within the fields, then
		// only zeros.
		var seen [mruLen]uint32
		for j := 0; j < mruLen; j++ {
			m := readU32(e[s.size+4*j:])
			seen[j] = m
			switch {
			case nf < 32 && m>>nf != 0:
				return errMalformedf("roster snapshot field set %#x", m)
			case m != 0 && j > 0 && seen[j-1] == 0:
				return errMalformedf("roster snapshot field set after an empty one")
			}
			for q := 0; q < j && m != 0; q++ {
				if seen[q] == m {
					return errMalformedf("roster snapshot repeats field set %#x", m)
				}
			}
		}
		ld := e[ctx+2*nf:]
		for j := 0; j < nf; j++ {
			if e[ctx+j] > 64 || e[ctx+nf+j] >= s.fields[j].bits {
				return errMalformedf("roster snapshot context out of range")
			}
			if s.fields[j].kind == kindBool && s.fields[j].load(ld) != 0 {
				return errMalformedf("roster snapshot step of a bool")
			}
		}
	}
	r.present = present
	i := 0
	for set := uint64(present); set != 0; set &= set - 1 {
		st := &r.states[bits.TrailingZeros64(set)]
		e := b[8+i*per : 8+(i+1)*per]
		s.ResetState(st, e[:s.size])
		for j := range st.mru {
			st.mru[j] = readU32(e[s.size+4*j:])
		}
		copy(st.k[:nf], e[ctx:])
		copy(st.sh[:nf], e[ctx+nf:])
		copy(st.ld[:s.size], e[ctx+2*nf:])
		i++
	}
	return nil
}
