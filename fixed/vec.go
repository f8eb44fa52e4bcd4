package fixed

import "math/bits"

// Vec is a 2-D vector of Nums, a plain value that fits in a world record.
type Vec struct {
	X, Y Num
}

// V returns the vector (x, y).
func V(x, y Num) Vec { return Vec{x, y} }

// VInt returns the vector of the integers (x, y), saturating.
func VInt(x, y int64) Vec { return Vec{FromInt(x), FromInt(y)} }

// Add returns v+w, each component saturating.
func (v Vec) Add(w Vec) Vec { return Vec{v.X.Add(w.X), v.Y.Add(w.Y)} }

// Sub returns v-w, each component saturating.
func (v Vec) Sub(w Vec) Vec { return Vec{v.X.Sub(w.X), v.Y.Sub(w.Y)} }

// Neg returns -v, each component saturating.
func (v Vec) Neg() Vec { return Vec{v.X.Neg(), v.Y.Neg()} }

// Scale returns v·k, each component rounded as Mul and saturating.
func (v Vec) Scale(k Num) Vec { return Vec{v.X.Mul(k), v.Y.Mul(k)} }

// Div returns v/k, each component rounded as Num.Div and saturating.
func (v Vec) Div(k Num) Vec { return Vec{v.X.Div(k), v.Y.Div(k)} }

// Dot returns v·w = v.X·w.X + v.Y·w.Y, computed exactly and rounded once
// to the nearest Num (ties away from zero), saturating.
func (v Vec) Dot(w Vec) Num { return mulAdd(v.X, w.X, v.Y, w.Y, false) }

// Cross returns the z of the 3-D cross product, v.X·w.Y - v.Y·w.X (the
// sine of the angle between them times both lengths), computed exactly
// and rounded once, saturating.
func (v Vec) Cross(w Vec) Num { return mulAdd(v.X, w.Y, v.Y, w.X, true) }

// LengthSq returns v·v, the squared length, saturating (a vector longer
// than about 1.2·10^7 saturates; Length does not).
func (v Vec) LengthSq() Num { return v.Dot(v) }

// Length returns |v| rounded to the nearest Num (correctly rounded),
// saturating only when the length itself exceeds Max.
func (v Vec) Length() Num {
	xh, xl := square(v.X)
	yh, yl := square(v.Y)
	lo, c := bits.Add64(xl, yl, 0)
	hi := xh + yh + c
	r := isqrt128(hi, lo)
	if r > uint64(Max) {
		return Max
	}
	return Num(r)
}

// Normalize returns v scaled to length 1 (each component rounded), or the
// zero vector for the zero vector.
func (v Vec) Normalize() Vec {
	n := v.Length()
	if n == 0 {
		return Vec{}
	}
	return Vec{v.X.Div(n), v.Y.Div(n)}
}

// Rotate returns v rotated by the angle a (radians, counterclockwise with
// Y up).
func (v Vec) Rotate(a Num) Vec {
	s, c := SinCos(a)
	return v.RotateSC(s, c)
}

// RotateSC returns v rotated by the angle whose sine and cosine are s and
// c (from SinCos), for rotating many vectors by one angle; each component
// is computed exactly and rounded once.
func (v Vec) RotateSC(s, c Num) Vec {
	return Vec{mulAdd(v.X, c, v.Y, s, true), mulAdd(v.X, s, v.Y, c, false)}
}

// Angle returns the angle of v, Atan2(v.Y, v.X), in (-π, π].
func (v Vec) Angle() Num { return Atan2(v.Y, v.X) }

// FromAngle returns the unit vector of the angle a: (Cos(a), Sin(a)).
func FromAngle(a Num) Vec {
	s, c := SinCos(a)
	return Vec{c, s}
}

// square returns a² as 128 bits.
func square(a Num) (hi, lo uint64) {
	u := abs64(int64(a))
	return mul128(u, u)
}

// mulAdd returns a·b + c·d (a·b - c·d when sub) computed exactly and
// rounded once to the nearest Num, ties away from zero, saturating.
func mulAdd(a, b, c, d Num, sub bool) Num {
	h1, l1, n1 := mulSigned(a, b)
	h2, l2, n2 := mulSigned(c, d)
	if sub {
		n2 = !n2
	}
	return sumRound(h1, l1, n1, h2, l2, n2)
}

// mulSigned returns a·b as a 128-bit magnitude and a sign.
func mulSigned(a, b Num) (hi, lo uint64, neg bool) {
	hi, lo = mul128(abs64(int64(a)), abs64(int64(b)))
	return hi, lo, (a ^ b) < 0
}

// sumRound returns (±h1:l1 ± h2:l2)/2^16 rounded to the nearest Num, ties
// away from zero, saturating. Each magnitude is below 2^126.
func sumRound(h1, l1 uint64, n1 bool, h2, l2 uint64, n2 bool) Num {
	var hi, lo uint64
	neg := n1
	if n1 == n2 {
		var c uint64
		lo, c = bits.Add64(l1, l2, 0)
		hi = h1 + h2 + c
	} else {
		// Subtract the smaller magnitude from the larger.
		if h1 < h2 || h1 == h2 && l1 < l2 {
			h1, l1, h2, l2, neg = h2, l2, h1, l1, n2
		}
		var b uint64
		lo, b = bits.Sub64(l1, l2, 0)
		hi = h1 - h2 - b
	}
	lo, c := bits.Add64(lo, 1<<(FracBits-1), 0)
	hi += c
	return signed(hi>>FracBits, hi<<(64-FracBits)|lo>>FracBits, neg)
}
