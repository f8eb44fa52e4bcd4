package fixed

import "math/bits"

// Sqrt returns the square root of a rounded to the nearest Num (correctly
// rounded: within half a raw step); a negative a gives 0.
func Sqrt(a Num) Num {
	if a <= 0 {
		return 0
	}
	// sqrt(raw/2^16)*2^16 = sqrt(raw*2^16).
	u := uint64(a)
	return Num(isqrt128(u>>(64-FracBits), u<<FracBits))
}

// isqrt128 returns the square root of the 128-bit hi:lo rounded to the
// nearest integer (a tie cannot happen: n = g²+g+1/4 has no integer n).
func isqrt128(hi, lo uint64) uint64 {
	if hi == 0 && lo == 0 {
		return 0
	}
	n := 64 + bits.Len64(hi)
	if hi == 0 {
		n = bits.Len64(lo)
	}
	// g starts at or above the root; Newton's steps then fall to its floor.
	g := uint64(1)<<((n+1)/2) - 1
	if (n+1)/2 < 64 {
		g++
	}
	for {
		q, _ := bits.Div64(hi, lo, g)
		s, c := bits.Add64(g, q, 0)
		y := s>>1 | c<<63
		if y >= g {
			break
		}
		g = y
	}
	// Round: n - g² > g means n >= g²+g+1, nearer to g+1.
	sh, sl := bits.Mul64(g, g)
	rl, b := bits.Sub64(lo, sl, 0)
	rh, _ := bits.Sub64(hi, sh, b)
	if rh != 0 || rl > g {
		g++
	}
	return g
}
