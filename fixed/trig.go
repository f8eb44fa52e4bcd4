package fixed

import "math/bits"

// Constants of the trigonometric functions, in Q.30 (the value times
// 2^30) unless their name says otherwise.
const (
	one30       = 1 << 30
	pi30        = 3373259426
	halfPi30    = 1686629713
	quarterPi30 = 843314857
	tanPi8of30  = 444758426 // tan(π/8) = √2-1
	// invTwoPi64 is 2^64/(2π) rounded: a raw Num times it is the angle in
	// turns times 2^80.
	invTwoPi64 = 2935890503282001226
)

// sinCoef and cosCoef are the Taylor coefficients ±1/n! of sin and cos
// in Q.30, lowest degree first; on [0, π/4] the first omitted term is
// below 2^-36.
var (
	sinCoef = [...]int64{1073741824, -178956971, 8947849, -213044, 2959, -27}
	cosCoef = [...]int64{1073741824, -536870912, 44739243, -1491308, 26631, -296, 2}
	// atanCoef are ±1/(2k+1) in Q.30; on |t| <= tan(π/8) the first
	// omitted term is below 2^-36.
	atanCoef = [...]int64{1073741824, -357913941, 214748365, -153391689, 119304647, -97612893,
		82595525, -71582788, 63161284, -56512728, 51130563, -46684427}
)

// Sin returns the sine of a (radians), within 0.51 raw steps of the true
// value for |a| below 2^40. Its angle in turns is computed with a 64-bit
// fraction, so the reduction adds an error of 2π·|a|·2^-65 radians: 0.012
// raw steps at 2^40, up to 1.6 at the range's ends.
func Sin(a Num) Num { return round30(sinTurn(turn(a))) }

// Cos returns the cosine of a (radians), within 0.51 raw steps of the true
// value for |a| below 2^40 (see Sin).
func Cos(a Num) Num { return round30(sinTurn(turn(a) + 1<<62)) }

// SinCos returns Sin(a) and Cos(a), the pair a rotation needs.
func SinCos(a Num) (sin, cos Num) {
	t := turn(a)
	return round30(sinTurn(t)), round30(sinTurn(t + 1<<62))
}

// turn returns a (radians) as a fraction of a turn, times 2^64, modulo
// one turn.
func turn(a Num) uint64 {
	hi, lo := bits.Mul64(uint64(a), invTwoPi64)
	// For a negative a, uint64(a) is a+2^64: the product is too large by
	// invTwoPi64·2^64. The product's bits 16 to 79 are the fraction kept.
	if a < 0 {
		hi -= invTwoPi64
	}
	return hi<<(64-FracBits) | lo>>FracBits
}

// sinTurn returns the sine of t/2^64 turns in Q.30.
func sinTurn(t uint64) int64 {
	u := t << 2 // the position in the quadrant, times 2^64
	var v int64
	if t>>62&1 == 0 {
		v = quarterSin(u)
	} else {
		v = quarterCos(u)
	}
	if t>>63 != 0 {
		v = -v
	}
	return v
}

// quarterSin returns sin(u/2^64 · π/2) in Q.30, from the polynomial of
// whichever of sin and cos has its argument in [0, π/4].
func quarterSin(u uint64) int64 {
	if u < 1<<63 {
		return poly(sinCoef[:], quarterAngle(u), true)
	}
	return poly(cosCoef[:], quarterAngle(-u), false)
}

// quarterCos returns cos(u/2^64 · π/2) in Q.30.
func quarterCos(u uint64) int64 {
	if u < 1<<63 {
		return poly(cosCoef[:], quarterAngle(u), false)
	}
	return poly(sinCoef[:], quarterAngle(-u), true)
}

// quarterAngle returns u/2^64 quarter turns in radians, Q.30.
func quarterAngle(u uint64) int64 { return int64((u >> 32) * halfPi30 >> 32) }

// poly evaluates Σ c[k]·x^(2k) (times x when odd) by Horner's rule in
// Q.30.
func poly(c []int64, x int64, odd bool) int64 {
	z := x * x >> 30
	p := c[len(c)-1]
	for k := len(c) - 2; k >= 0; k-- {
		p = c[k] + p*z>>30
	}
	if odd {
		p = p * x >> 30
	}
	return p
}

// round30 returns the Q.30 v as the nearest Num (ties upward).
func round30(v int64) Num { return Num((v + 1<<(29-FracBits)) >> (30 - FracBits)) }

// Atan2 returns the angle of the point (x, y) in radians, in (-π, π],
// within 0.51 raw steps of the true value: Atan2(0, 0) is 0, Atan2(0, x<0)
// is Pi.
func Atan2(y, x Num) Num {
	if x == 0 && y == 0 {
		return 0
	}
	ax, ay := abs64(int64(x)), abs64(int64(y))
	swap := ay > ax
	if swap {
		ax, ay = ay, ax
	}
	z, _ := bits.Div64(ay>>34, ay<<30, ax) // ay/ax in Q.30, in [0, 1]
	a := atan30(int64(z))
	if swap {
		a = halfPi30 - a
	}
	if x < 0 {
		a = pi30 - a
	}
	if y < 0 {
		a = -a
	}
	return round30(a)
}

// atan30 returns atan(z) for z in [0, 1] in Q.30; above tan(π/8) it uses
// atan(z) = π/4 + atan((z-1)/(z+1)) so that the series converges fast.
func atan30(z int64) int64 {
	if z <= tanPi8of30 {
		return poly(atanCoef[:], z, true)
	}
	t := ((z - one30) << 30) / (z + one30)
	return quarterPi30 + poly(atanCoef[:], t, true)
}
