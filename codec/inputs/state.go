package inputs

import (
	"encoding/binary"
	"fmt"
)

// StateLen returns the length of AppendState's output for this schema.
func (s *Schema) StateLen() int { return 2*s.size + 4*mruLen + 2*len(s.fields) }

// AppendState appends st (a state of this schema) to b: the packed input;
// the four most recent sets of changed fields (uint32 LE each, latest
// first, 0 = none); per field the Exp-Golomb order, then per field the
// shift (one byte each); and the last change of every field in packed
// form (the difference for integers, the XOR for floats, 0 for bools).
// Package codec's Roster snapshot (a Welcome's roster) is made of these.
func (s *Schema) AppendState(b []byte, st *State) []byte {
	nf := len(s.fields)
	b = append(b, st.Input()...)
	for _, m := range st.mru {
		b = binary.LittleEndian.AppendUint32(b, m)
	}
	b = append(b, st.k[:nf]...)
	b = append(b, st.sh[:nf]...)
	return append(b, st.ld[:s.size]...)
}

// CheckState reports whether e (StateLen bytes) is a state AppendState
// could have written: a sanitized, canonical input and a coding context
// within its bounds. It fails with ErrSize for e of another length, an
// error wrapping ErrMalformed (or Sanitize's error) otherwise.
func (s *Schema) CheckState(e []byte) error {
	if len(e) != s.StateLen() {
		return fmt.Errorf("%w: state of %d bytes, want %d", ErrSize, len(e), s.StateLen())
	}
	nf := len(s.fields)
	ctx := s.size + 4*mruLen // offset of k
	var tmp State
	s.ResetState(&tmp, e[:s.size])
	if err := s.Sanitize(tmp.in[:s.size]); err != nil {
		return err
	}
	if string(tmp.in[:s.size]) != string(e[:s.size]) {
		return fmt.Errorf("%w: state input not canonical", ErrMalformed)
	}
	// Recent field sets: nonzero, distinct, within the fields, then only
	// zeros.
	var seen [mruLen]uint32
	for j := 0; j < mruLen; j++ {
		m := binary.LittleEndian.Uint32(e[s.size+4*j:])
		seen[j] = m
		switch {
		case nf < 32 && m>>nf != 0:
			return fmt.Errorf("%w: state field set %#x", ErrMalformed, m)
		case m != 0 && j > 0 && seen[j-1] == 0:
			return fmt.Errorf("%w: state field set after an empty one", ErrMalformed)
		}
		for q := 0; q < j && m != 0; q++ {
			if seen[q] == m {
				return fmt.Errorf("%w: state repeats field set %#x", ErrMalformed, m)
			}
		}
	}
	ld := e[ctx+2*nf:]
	for j := 0; j < nf; j++ {
		if e[ctx+j] > 64 || e[ctx+nf+j] >= s.fields[j].bits {
			return fmt.Errorf("%w: state context out of range", ErrMalformed)
		}
		if s.fields[j].kind == kindBool && s.fields[j].load(ld) != 0 {
			return fmt.Errorf("%w: state step of a bool", ErrMalformed)
		}
	}
	return nil
}

// LoadState sets st to the state e, which CheckState has accepted.
func (s *Schema) LoadState(st *State, e []byte) {
	nf := len(s.fields)
	ctx := s.size + 4*mruLen
	s.ResetState(st, e[:s.size])
	for j := range st.mru {
		st.mru[j] = binary.LittleEndian.Uint32(e[s.size+4*j:])
	}
	copy(st.k[:nf], e[ctx:])
	copy(st.sh[:nf], e[ctx+nf:])
	copy(st.ld[:s.size], e[ctx+2*nf:])
}
