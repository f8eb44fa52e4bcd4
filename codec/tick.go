package codec

import (
	"fmt"
	"math/bits"

	"github.com/rewindnet/rewind/codec/inputs"
)

// A tick body is the part of a server tick that is the same for every
// client: the server encodes it once (TickEncoder.AppendTick) and sends the
// same bytes to everyone inside ServerTicks. Its bits, first to last:
//
//	events:1            1 = events follow
//	  count             Elias gamma (1..MaxEvents)
//	  per event         kind:1 (0 join, 1 leave), player:6
//	per present player, ascending id (after the events):
//	  input delta       Schema.EncodeDelta (1 bit when unchanged)
//	late:1              1 = a late mask follows
//	  per present player whose input did not change: 1 bit, 1 = late
//	hash                the low HashBits bits of the world hash
//	zero bits to the next byte boundary
//
// A body is never empty. Decoding needs the roster at the tick before
// (TickDecoder), so ticks are decoded in order.

// TickEncoder is the server's side of the tick stream.
type TickEncoder struct {
	roster   Roster
	hashBits uint8
	events   [MaxEvents]Event
	nev      int
	staged   PlayerSet
	late     PlayerSet
	next     [MaxPlayers][inputs.MaxSize]byte
	w        inputs.BitWriter
	hashAt   int // bit offset of the hash in the last body (tick_hash.go)
}

// NewTickEncoder returns an encoder with an empty roster whose ticks carry
// hashBits bits of the world hash (0..64).
func NewTickEncoder(s *inputs.Schema, hashBits uint8) *TickEncoder {
	if hashBits > 64 {
		panic("codec: hashBits > 64")
	}
	return &TickEncoder{roster: Roster{schema: s}, hashBits: hashBits}
}

// Roster returns the roster after the last encoded tick (do not modify).
func (e *TickEncoder) Roster() *Roster { return &e.roster }

// present returns who will be present at the next tick after the queued
// events.
func (e *TickEncoder) present() PlayerSet {
	p := e.roster.present
	for _, ev := range e.events[:e.nev] {
		if ev.Kind == EventJoin {
			p = p.With(ev.Player)
		} else {
			p = p.Without(ev.Player)
		}
	}
	return p
}

// Join queues a join of p for the next tick. It fails with ErrPlayer if p is
// out of range or already present then, ErrTooLarge past MaxEvents.
func (e *TickEncoder) Join(p uint8) error {
	if p >= MaxPlayers || e.present().Has(p) {
		return fmt.Errorf("%w: join of player %d", ErrPlayer, p)
	}
	return e.addEvent(Event{EventJoin, p})
}

// Leave queues a leave of p for the next tick. It fails with ErrPlayer if p
// is not present then.
func (e *TickEncoder) Leave(p uint8) error {
	if !e.present().Has(p) {
		return fmt.Errorf("%w: leave of player %d", ErrPlayer, p)
	}
	e.staged = e.staged.Without(p)
	e.late = e.late.Without(p)
	return e.addEvent(Event{EventLeave, p})
}

func (e *TickEncoder) addEvent(ev Event) error {
	if e.nev == MaxEvents {
		return fmt.Errorf("%w: more than %d events in a tick", ErrTooLarge, MaxEvents)
	}
	e.events[e.nev] = ev
	e.nev++
	return nil
}

// SetInput sets p's input for the next tick (a packed input, already
// sanitized: the server sanitizes every input it accepts). A player whose
// input is not set keeps the previous one. It fails with ErrPlayer if p is
// not present at the next tick, ErrInputSize for a wrong length.
func (e *TickEncoder) SetInput(p uint8, in []byte) error {
	if !e.present().Has(p) {
		return fmt.Errorf("%w: input of absent player %d", ErrPlayer, p)
	}
	if len(in) != e.roster.schema.Size() {
		return fmt.Errorf("%w: %d bytes", inputs.ErrSize, len(in))
	}
	copy(e.next[p][:], in)
	e.staged = e.staged.With(p)
	return nil
}

// SetLate marks p's input of the next tick as late (repeated): p's input is
// left unchanged whatever SetInput said.
func (e *TickEncoder) SetLate(p uint8) {
	if e.present().Has(p) {
		e.late = e.late.With(p)
		e.staged = e.staged.Without(p)
	}
}

// AppendTick encodes the next tick (the queued events, the set inputs, the
// late marks, and the low HashBits bits of hash, the world hash after the
// tick), appends the body to b, and makes the tick current in the roster.
// It does not allocate beyond b's growth.
func (e *TickEncoder) AppendTick(b []byte, hash uint64) []byte {
	r := &e.roster
	s := r.schema
	w := &e.w
	w.Reset(b)
	if e.nev == 0 {
		w.WriteBits(0, 1)
	} else {
		w.WriteBits(1, 1)
		w.WriteGamma(uint64(e.nev))
		for _, ev := range e.events[:e.nev] {
			w.WriteBits(uint64(ev.Kind), 1)
			w.WriteBits(uint64(ev.Player), 6)
			if ev.Kind == EventJoin {
				r.join(ev.Player)
			} else {
				r.present = r.present.Without(ev.Player)
			}
		}
	}
	var unchanged PlayerSet
	for set := uint64(r.present); set != 0; set &= set - 1 {
		p := uint8(bits.TrailingZeros64(set))
		st := &r.states[p]
		cur := st.Input()
		if e.staged.Has(p) && !e.late.Has(p) {
			cur = e.next[p][:s.Size()]
		}
		if string(cur) == string(st.Input()) {
			w.WriteBits(0, 1)
			unchanged = unchanged.With(p)
			continue
		}
		s.EncodeDelta(w, st, cur)
	}
	late := e.late & unchanged
	if late == 0 {
		w.WriteBits(0, 1)
	} else {
		w.WriteBits(1, 1)
		for set := uint64(unchanged); set != 0; set &= set - 1 {
			w.WriteBits(uint64(late>>bits.TrailingZeros64(set))&1, 1)
		}
	}
	e.hashAt = w.BitLen() - 8*len(b)
	w.WriteBits(hash, uint(e.hashBits))
	e.nev, e.staged, e.late = 0, 0, 0
	return w.Bytes()
}

// TickDecoder is a client's side of the tick stream.
type TickDecoder struct {
	roster   Roster
	hashBits uint8
	stage    [MaxPlayers]inputs.State
	r        inputs.BitReader
}

// NewTickDecoder returns a decoder with an empty roster for ticks carrying
// hashBits bits of the world hash (Welcome.HashBits).
func NewTickDecoder(s *inputs.Schema, hashBits uint8) *TickDecoder {
	if hashBits > 64 {
		panic("codec: hashBits > 64")
	}
	return &TickDecoder{roster: Roster{schema: s}, hashBits: hashBits}
}

// Roster returns the roster after the last decoded tick. Load a Welcome's
// snapshot into it with ParseSnapshot before the first tick.
func (d *TickDecoder) Roster() *Roster { return &d.roster }

// DecodeTick decodes the body of the tick after the roster's and fills t
// (all fields but t.Tick, which the caller sets). On error (truncation,
// a malformed code, a bad player id, nonzero padding or trailing bytes) the
// roster is unchanged. It does not allocate when t.Events has capacity
// MaxEvents.
func (d *TickDecoder) DecodeTick(body []byte, t *Tick) error {
	r := &d.r
	r.Reset(body)
	rs := &d.roster
	s := rs.schema
	present := rs.present
	var joined PlayerSet
	var err error
	if t.Events, present, joined, err = readEvents(r, t.Events[:0], present); err != nil {
		return err
	}
	var changed, unchanged PlayerSet
	for set := uint64(present); set != 0; set &= set - 1 {
		p := uint8(bits.TrailingZeros64(set))
		if r.Remaining() > 0 && !r.PeekBit() {
			r.ReadBits(1)
			unchanged = unchanged.With(p)
			continue
		}
		st := &d.stage[p]
		if joined.Has(p) {
			s.ResetState(st, nil)
		} else {
			*st = rs.states[p]
		}
		if err := s.DecodeDeltaFast(r, st); err != nil {
			return err
		}
		changed = changed.With(p)
	}
	late, err := readLate(r, unchanged)
	if err != nil {
		return err
	}
	hash := r.ReadBits(uint(d.hashBits))
	if err := checkEnd(r); err != nil {
		return err
	}
	// Commit.
	for set := uint64(present); set != 0; set &= set - 1 {
		p := bits.TrailingZeros64(set)
		switch {
		case changed.Has(uint8(p)):
			rs.states[p] = d.stage[p]
		case joined.Has(uint8(p)):
			s.ResetState(&rs.states[p], nil)
		}
	}
	rs.present = present
	t.Present, t.Changed, t.Late, t.Hash = present, changed, late, hash
	return nil
}

// readEvents reads a tick body's events (a flag, then their count and each
// event) into events, and returns them with presence after them and the
// players who joined.
func readEvents(r *inputs.BitReader, events []Event, present PlayerSet) ([]Event, PlayerSet, PlayerSet, error) {
	var joined PlayerSet
	if !r.ReadBit() {
		return events, present, joined, r.Err()
	}
	n := r.ReadGamma()
	if r.Err() != nil {
		return events, present, joined, r.Err()
	}
	if n > MaxEvents {
		return events, present, joined, fmt.Errorf("%w: %d events in a tick", ErrTooLarge, n)
	}
	for i := uint64(0); i < n; i++ {
		k := EventKind(r.ReadBits(1))
		p := uint8(r.ReadBits(6))
		if r.Err() != nil {
			return events, present, joined, r.Err()
		}
		if k == EventJoin {
			if present.Has(p) {
				return events, present, joined, fmt.Errorf("%w: join of present player %d", ErrPlayer, p)
			}
			present = present.With(p)
			joined = joined.With(p)
		} else {
			if !present.Has(p) {
				return events, present, joined, fmt.Errorf("%w: leave of absent player %d", ErrPlayer, p)
			}
			present = present.Without(p)
		}
		events = append(events, Event{k, p})
	}
	return events, present, joined, nil
}

// readLate reads the late mask: a flag, then a bit for each unchanged
// player (a flagged mask must not be empty).
func readLate(r *inputs.BitReader, unchanged PlayerSet) (PlayerSet, error) {
	var late PlayerSet
	if !r.ReadBit() {
		return late, nil
	}
	for set := uint64(unchanged); set != 0; set &= set - 1 {
		if r.ReadBit() {
			late = late.With(uint8(bits.TrailingZeros64(set)))
		}
	}
	if late == 0 && r.Err() == nil {
		return late, errMalformedf("late mask flagged but empty")
	}
	return late, nil
}

// checkEnd checks that a tick body read cleanly to its end: nothing but
// zero padding within the last byte.
func checkEnd(r *inputs.BitReader) error {
	if r.Err() != nil {
		return r.Err()
	}
	if r.Remaining() >= 8 {
		return errMalformedf("%d trailing bytes after a tick body", r.Remaining()/8)
	}
	if rem := r.Remaining(); rem > 0 && r.ReadBits(uint(rem)) != 0 {
		return errMalformedf("nonzero padding after a tick body")
	}
	return nil
}
