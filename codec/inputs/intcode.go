package inputs

import (
	"fmt"
	"math/bits"
)

// Numeric codes of a changed field, shared by encoder and decoder (the
// step codes that come first, "undo"/"repeat the last change", are in
// EncodeDelta and DecodeDelta).
//
// Integer difference d (wrapping at the field's width, read as signed, never
// 0): with sh the field's shift from its last change, a shift code says
// whether d has at least sh trailing zero bits ("1", or nothing when
// sh == 0) or exactly t < sh ("0" then t in ceil(log2(sh)) bits); the shift
// used is s = sh or t. Then sign:1 and u = |d >> s| - 1 as Exp-Golomb of
// order k (the field's magnitude estimate): q = (u >> k) + 1 in Elias gamma,
// then the low k bits of u. Afterwards both ends set sh to the trailing
// zeros of d and k to (k + 2·bitlen(u) + 1) / 3, a running estimate of
// the bit length of u.
//
// Float change x = old XOR new (bits, never 0): with sh the last trailing
// zero count, t = trailing zeros of x is coded as for integers, then the
// significant length L = bitlen(x >> s) as Exp-Golomb(k) of L-1, then the
// L-1 bits below the leading one.

func adaptK(k *uint8, u uint64) {
	n := uint8(bits.Len64(u))
	*k = (*k + 2*n + 1) / 3
}

func writeShift(w *BitWriter, sh uint8, tz uint) uint {
	if sh == 0 {
		return 0
	}
	if tz >= uint(sh) {
		w.WriteBits(1, 1)
		return uint(sh)
	}
	w.WriteBits(0, 1)
	w.WriteBits(uint64(tz), uint(bits.Len8(sh-1)))
	return tz
}

func readShift(r *BitReader, sh uint8) (s uint, exact bool, err error) {
	if sh == 0 {
		return 0, false, nil
	}
	if r.ReadBits(1) == 1 {
		return uint(sh), false, nil
	}
	t := uint(r.ReadBits(uint(bits.Len8(sh - 1))))
	if t >= uint(sh) && r.err == nil {
		return 0, false, fmt.Errorf("%w: shift escape %d not below %d", ErrMalformed, t, sh)
	}
	return t, true, nil
}

func writeEG(w *BitWriter, u uint64, k uint8) {
	w.WriteGamma((u >> k) + 1)
	w.WriteBits(u, uint(k))
}

func readEG(r *BitReader, k uint8) uint64 {
	q := r.ReadGamma() - 1
	if r.err != nil {
		return 0
	}
	if q > (1<<(64-uint(k)))-1 {
		r.err = ErrMalformed
		return 0
	}
	return q<<k | r.ReadBits(uint(k))
}

// encodeInt writes the raw wrapping difference d of a field of width nb.
func encodeInt(w *BitWriter, st *State, i int, d uint64, nb uint8) {
	sd := signed(d, nb)
	tz := uint(bits.TrailingZeros64(uint64(sd)))
	s := writeShift(w, st.sh[i], tz)
	m := sd >> s
	var u uint64
	if m < 0 {
		w.WriteBits(1, 1)
		u = uint64(-m) - 1 // -MinInt64 wraps to MinInt64, minus 1 is MaxInt64: fine
	} else {
		w.WriteBits(0, 1)
		u = uint64(m) - 1
	}
	writeEG(w, u, st.k[i])
	adaptK(&st.k[i], u)
	st.sh[i] = uint8(tz)
}

// decodeInt reads what encodeInt wrote and returns the raw difference.
func decodeInt(r *BitReader, k, sh *uint8, nb uint8) (uint64, error) {
	s, exact, err := readShift(r, *sh)
	if err != nil {
		return 0, err
	}
	neg := r.ReadBits(1) == 1
	u := readEG(r, *k)
	if r.err != nil {
		return 0, r.err
	}
	if s >= uint(nb) {
		return 0, fmt.Errorf("%w: shift %d beyond a %d-bit field", ErrMalformed, s, nb)
	}
	lim := uint64(1) << (uint(nb) - 1 - s) // |d >> s| <= lim, and < lim when positive
	if u >= lim || (!neg && u+1 == lim) {
		return 0, fmt.Errorf("%w: integer difference out of range", ErrMalformed)
	}
	if exact && (u+1)&1 == 0 {
		return 0, fmt.Errorf("%w: integer difference not canonical", ErrMalformed)
	}
	m := u + 1
	if neg {
		m = -m
	}
	d := (m << s) & widthMask(nb)
	adaptK(k, u)
	*sh = uint8(bits.TrailingZeros64(d))
	return d, nil
}

func widthMask(nb uint8) uint64 {
	if nb >= 64 {
		return ^uint64(0)
	}
	return 1<<nb - 1
}

// encodeXor writes the XOR x of a float field of width nb.
func encodeXor(w *BitWriter, st *State, i int, x uint64, nb uint8) {
	tz := uint(bits.TrailingZeros64(x))
	s := writeShift(w, st.sh[i], tz)
	v := x >> s
	l := uint64(bits.Len64(v))
	writeEG(w, l-1, st.k[i])
	w.WriteBits(v, uint(l-1))
	adaptK(&st.k[i], l-1)
	st.sh[i] = uint8(tz)
}

// decodeXor reads what encodeXor wrote and returns the XOR.
func decodeXor(r *BitReader, k, sh *uint8, nb uint8) (uint64, error) {
	s, exact, err := readShift(r, *sh)
	if err != nil {
		return 0, err
	}
	l := readEG(r, *k) + 1
	if r.err != nil {
		return 0, r.err
	}
	if s >= uint(nb) || l > uint64(uint(nb)-s) {
		return 0, fmt.Errorf("%w: float change out of range", ErrMalformed)
	}
	v := r.ReadBits(uint(l-1)) | 1<<(l-1)
	if r.err != nil {
		return 0, r.err
	}
	if exact && v&1 == 0 {
		return 0, fmt.Errorf("%w: float change not canonical", ErrMalformed)
	}
	x := v << s
	adaptK(k, l-1)
	*sh = uint8(bits.TrailingZeros64(x))
	return x, nil
}
