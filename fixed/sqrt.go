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
	var g uint64
	if hi == 0 {
		g = isqrt64(lo)
	} else {
		// Start from the root of the top 64 bits, rounded up (within
		// 2^-31 of the root, above it); Newton's steps on 128 bits then
		// fall to the floor in two or three divisions.
		k := uint(bits.Len64(hi)+1) / 2
		top := hi<<(64-2*k) | lo>>(2*k)
		if k == 32 {
			top = hi
		}
		g = (isqrt64(top) + 1) << k
		if g == 0 { // (2^32) << 32 overflowed: the root is below 2^64
			g = 1<<64 - 1
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

// isqrt64 returns the floor of the square root of n with 64-bit
// divisions only (Newton's method from a power of two above the root).
func isqrt64(n uint64) uint64 {
	if n < 2 {
		return n
	}
	g := uint64(1) << ((bits.Len64(n) + 1) / 2)
	for {
		y := (g + n/g) >> 1
		if y >= g {
			return g
		}
		g = y
	}
}
