package codec

import (
	"fmt"
	"math/bits"
)

// InputState is one player's input stream as both ends of a delta-coded
// stream hold it: the current (last decoded or encoded) packed input plus
// the small adaptive context of the coding (which fields changed last time,
// per-field shift and magnitude estimates). Encoder and decoder stay in
// step because both update it from the same values. It is a plain value:
// copy it to keep the state at a tick; the zero value must be initialized
// with Schema.ResetState before use.
type InputState struct {
	in   [MaxInputSize]byte
	n    uint16
	mask uint32           // fields changed at the last change
	k    [MaxFields]uint8 // per-field magnitude estimate (Exp-Golomb order)
	sh   [MaxFields]uint8 // per-field trailing-zero shift of the last change
}

// Input returns the current packed input (aliasing the state).
func (st *InputState) Input() []byte { return st.in[:st.n] }

// ResetState sets st to the start of a stream whose current input is in
// (all zero when in is nil), with a fresh coding context.
func (s *Schema) ResetState(st *InputState, in []byte) {
	*st = InputState{n: uint16(s.size)}
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
//	same:1                          1 = the same fields changed as at the last change
//	mask:NumFields                  only when same = 0; bit i = field i changed
//	per changed field, in order:
//	  bool      nothing (it flipped)
//	  integer   shift code, then sign:1 and Exp-Golomb(k) of (|d>>shift|-1)/2
//	  float     XOR window code, then the window's bits
func (s *Schema) EncodeDelta(w *BitWriter, st *InputState, cur []byte) {
	if len(cur) != s.size {
		panic("codec: EncodeDelta: input of wrong size")
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
	if mask == st.mask {
		w.WriteBits(0b11, 2)
	} else {
		w.WriteBits(0b01, 2)
		w.WriteBits(uint64(mask), uint(len(s.fields)))
		st.mask = mask
	}
	for m := mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		f := &s.fields[i]
		a, b := f.load(prev), f.load(cur)
		switch f.kind {
		case kindBool:
		case kindInt, kindUint:
			encodeInt(w, st, i, b-a, f.bits)
		default:
			encodeXor(w, st, i, a^b, f.bits)
		}
		f.store(prev, b)
	}
	st.n = uint16(s.size)
}

// DecodeDelta reads one delta written by EncodeDelta and applies it to st.
// On error (io.ErrUnexpectedEOF for truncation, ErrMalformed) st is left
// unchanged. It does not allocate on success.
func (s *Schema) DecodeDelta(r *BitReader, st *InputState) error {
	if r.ReadBits(1) == 0 {
		return r.Err()
	}
	mask := st.mask
	if r.ReadBits(1) == 0 {
		mask = uint32(r.ReadBits(uint(len(s.fields))))
		if mask == 0 || mask == st.mask {
			if r.Err() != nil {
				return r.Err()
			}
			return fmt.Errorf("%w: input delta with empty or repeated field mask", ErrMalformed)
		}
	} else if mask == 0 {
		if r.Err() != nil {
			return r.Err()
		}
		return fmt.Errorf("%w: input delta repeats a field mask before any", ErrMalformed)
	}
	// Decode into a scratch copy of the context; commit when all is read.
	var vals [MaxFields]uint64
	k, sh := st.k, st.sh
	prev := st.in[:s.size]
	for m := mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		f := &s.fields[i]
		a := f.load(prev)
		switch f.kind {
		case kindBool:
			vals[i] = a ^ 1
		case kindInt, kindUint:
			d, err := decodeInt(r, &k[i], &sh[i], f.bits)
			if err != nil {
				return err
			}
			vals[i] = a + d
		default:
			x, err := decodeXor(r, &k[i], &sh[i], f.bits)
			if err != nil {
				return err
			}
			vals[i] = a ^ x
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	for m := mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		s.fields[i].store(prev, vals[i])
	}
	st.mask, st.k, st.sh = mask, k, sh
	return nil
}
