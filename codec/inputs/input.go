package inputs

import (
	"fmt"
	"math/bits"
)

// State is one player's input stream as both ends of a delta-coded
// stream hold it: the current (last decoded or encoded) packed input plus
// the small adaptive context of the coding (which fields changed last time,
// per-field shift and magnitude estimates). Encoder and decoder stay in
// step because both update it from the same values. It is a plain value:
// copy it to keep the state at a tick; the zero value must be initialized
// with Schema.ResetState before use.
type State struct {
	in  [MaxSize]byte
	n   uint16
	mru [mruLen]uint32   // the last distinct sets of changed fields, latest first (0 = none)
	k   [MaxFields]uint8 // per-field magnitude estimate (Exp-Golomb order)
	sh  [MaxFields]uint8 // per-field trailing-zero shift of the last change
	ld  [MaxSize]byte    // per-field last change (difference or XOR), packed
}

// mruLen is how many recent sets of changed fields an State keeps.
const mruLen = 4

// Input returns the current packed input (aliasing the state).
func (st *State) Input() []byte { return st.in[:st.n] }

// ResetState sets st to the start of a stream whose current input is in
// (all zero when in is nil), with a fresh coding context.
func (s *Schema) ResetState(st *State, in []byte) {
	*st = State{n: uint16(s.size)}
	copy(st.in[:s.size], in)
}

// EncodeDelta writes the change from st's current input to cur (a
// sanitized packed input of Size() bytes) into w and makes cur the current
// input of st. An unchanged input costs one bit. It does not allocate
// (beyond w's buffer growth) and panics if len(cur) != Size().
//
// Code (bits, first to last; see docs/wire.md "Input delta"):
//
//	changed:1                       0 = same input as before, done
//	which fields                    1 / 01 / 001 / 0001: the same set as the 1st..4th
//	                                most recent change; 0000 then NumFields bits
//	                                (bit i = field i changed): a new set
//	per changed field, in order:
//	  bool      nothing (it flipped)
//	  integer   when the field changed before: "1" = undoes the last
//	            change, "01" = repeats it, "00" = other; then (other)
//	            shift code, sign:1 and Exp-Golomb(k) of |d>>shift|-1
//	  float     when it changed before: "1" = the same bits flip as last
//	            time, "0" = other; then (other) shift code and the XOR's
//	            significant bits
func (s *Schema) EncodeDelta(w *BitWriter, st *State, cur []byte) {
	if len(cur) != s.size {
		panic("inputs: EncodeDelta: input of wrong size")
	}
	prev := st.in[:s.size]
	var mask uint32
	for i := range s.fields {
		f := &s.fields[i]
		if f.load(prev) != f.load(cur) {
			mask |= 1 << i
		}
	}
	if mask == 0 {
		w.WriteBits(0, 1)
		return
	}
	w.WriteBits(1, 1)
	s.writeFieldSet(w, st, mask)
	for m := mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		f := &s.fields[i]
		a, b := f.load(prev), f.load(cur)
		f.store(prev, b)
		if f.kind != kindBool {
			encodeChange(w, st, i, f, a, b)
		}
	}
	st.n = uint16(s.size)
}

// writeFieldSet writes which fields changed: the index of the set among
// the recent ones in unary (1, 01, 001, 0001), or 0000 and the set's bits;
// and makes it the most recent set.
func (s *Schema) writeFieldSet(w *BitWriter, st *State, mask uint32) {
	idx := mruLen
	for j, m := range st.mru {
		if m == mask {
			idx = j
			break
		}
	}
	if idx < mruLen {
		w.WriteBits(1<<idx, uint(idx+1))
	} else {
		w.WriteBits(0, mruLen)
		w.WriteBits(uint64(mask), uint(len(s.fields)))
		idx = mruLen - 1
	}
	copy(st.mru[1:idx+1], st.mru[:idx])
	st.mru[0] = mask
}

// encodeChange writes the change of field i (f, not a bool) from a to b:
// a step code when it undoes (or, for integers, repeats) the field's last
// change, else the change itself.
func encodeChange(w *BitWriter, st *State, i int, f *field, a, b uint64) {
	isInt := f.kind == kindInt || f.kind == kindUint
	wm := widthMask(f.bits)
	d := a ^ b
	if isInt {
		d = (b - a) & wm
	}
	last := f.load(st.ld[:])
	f.store(st.ld[:], d)
	if last != 0 {
		switch {
		case isInt && d == -last&wm, !isInt && d == last:
			w.WriteBits(1, 1)
			st.sh[i] = uint8(bits.TrailingZeros64(d))
			return
		case isInt && d == last:
			w.WriteBits(0b10, 2)
			st.sh[i] = uint8(bits.TrailingZeros64(d))
			return
		case isInt:
			w.WriteBits(0b00, 2)
		default:
			w.WriteBits(0, 1)
		}
	}
	if isInt {
		encodeInt(w, st, i, d, f.bits)
	} else {
		encodeXor(w, st, i, d, f.bits)
	}
}

// DecodeDelta reads one delta written by EncodeDelta and applies it to st.
// On error (io.ErrUnexpectedEOF for truncation, ErrMalformed) st is left
// unchanged. It does not allocate.
func (s *Schema) DecodeDelta(r *BitReader, st *State) error {
	// Peek the changed bit: an unchanged input needs no scratch copy.
	if r.Remaining() > 0 && r.buf[r.pos>>3]>>(r.pos&7)&1 == 0 {
		r.ReadBits(1)
		return nil
	}
	tmp := *st
	if err := s.DecodeDeltaFast(r, &tmp); err != nil {
		return err
	}
	*st = tmp
	return nil
}

// DecodeDeltaFast is DecodeDelta without its guarantee, and without the
// copy of st the guarantee costs: on error st is left partly updated. Use
// it on a state the caller drops on error (a copy of its own, or a
// decoder that stops at the first error).
func (s *Schema) DecodeDeltaFast(r *BitReader, st *State) error {
	if r.ReadBits(1) == 0 {
		return r.Err()
	}
	mask, err := s.readFieldSet(r, st)
	if err != nil {
		return err
	}
	prev := st.in[:s.size]
	for m := mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		f := &s.fields[i]
		a := f.load(prev)
		if f.kind == kindBool {
			f.store(prev, a^1)
			continue
		}
		d, err := decodeChange(r, st, i, f)
		if err != nil {
			return err
		}
		f.store(st.ld[:], d)
		if f.kind == kindInt || f.kind == kindUint {
			f.store(prev, a+d)
		} else {
			f.store(prev, a^d)
		}
	}
	return r.Err()
}

// readFieldSet reads which fields changed (see writeFieldSet), refusing an
// empty set and a new set spelled out that a recent one names, and makes
// it the most recent set.
func (s *Schema) readFieldSet(r *BitReader, st *State) (uint32, error) {
	idx := 0
	for idx < mruLen && r.ReadBits(1) == 0 {
		idx++
	}
	if r.Err() != nil {
		return 0, r.Err()
	}
	var mask uint32
	if idx < mruLen {
		mask = st.mru[idx]
		if mask == 0 {
			return 0, fmt.Errorf("%w: input delta names recent field set %d, which is empty", ErrMalformed, idx)
		}
	} else {
		mask = uint32(r.ReadBits(uint(len(s.fields))))
		if r.Err() != nil {
			return 0, r.Err()
		}
		if mask == 0 {
			return 0, fmt.Errorf("%w: input delta with an empty field set", ErrMalformed)
		}
		for _, m := range st.mru {
			if m == mask {
				return 0, fmt.Errorf("%w: input delta spells out a recent field set", ErrMalformed)
			}
		}
		idx = mruLen - 1
	}
	copy(st.mru[1:idx+1], st.mru[:idx])
	st.mru[0] = mask
	return mask, nil
}

// decodeChange reads the change of field i (f, not a bool) that
// encodeChange wrote, refusing a change coded in full that a step code
// should have coded.
func decodeChange(r *BitReader, st *State, i int, f *field) (uint64, error) {
	isInt := f.kind == kindInt || f.kind == kindUint
	wm := widthMask(f.bits)
	last := f.load(st.ld[:])
	if last != 0 {
		var d uint64
		step := false
		switch {
		case r.ReadBits(1) == 1:
			d = last
			if isInt {
				d = -last & wm
			}
			step = true
		case isInt && r.ReadBits(1) == 1:
			if last == -last&wm {
				if r.Err() != nil {
					return 0, r.Err()
				}
				return 0, fmt.Errorf("%w: repeat step equal to an undo step", ErrMalformed)
			}
			d = last
			step = true
		}
		if r.Err() != nil {
			return 0, r.Err()
		}
		if step {
			st.sh[i] = uint8(bits.TrailingZeros64(d))
			return d, nil
		}
	}
	var d uint64
	var err error
	if isInt {
		d, err = decodeInt(r, &st.k[i], &st.sh[i], f.bits)
	} else {
		d, err = decodeXor(r, &st.k[i], &st.sh[i], f.bits)
	}
	if err != nil {
		return 0, err
	}
	if last != 0 && (d == last || (isInt && d == -last&wm)) {
		return 0, fmt.Errorf("%w: change that a step code should have coded", ErrMalformed)
	}
	return d, nil
}
