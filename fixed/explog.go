package fixed

import "math/bits"

// Constants of Exp and Log.
const (
	ln2of48   = 195103586505167     // ln 2 in Q.48
	ln2of40   = 762123384786        // ln 2 in Q.40
	sqrt2of62 = 6521908912666391106 // √2 in Q.62
	one62     = 1 << 62
	// expHi is the smallest argument whose Exp saturates: e^33 > 2^47.
	expHi = 33 << FracBits
	// expLo is below the largest argument whose Exp rounds to 0:
	// e^-12 < 2^-17.
	expLo = -12 << FracBits
)

// expCoef are 1/n! in Q.62 (truncated), n = 0..19: on [0, ln 2) the first
// omitted term is below 2^-65.
var expCoef = [...]uint64{4611686018427387904, 4611686018427387904, 2305843009213693952,
	768614336404564650, 192153584101141162, 38430716820228232, 6405119470038038,
	915017067148291, 114377133393536, 12708570377059, 1270857037705, 115532457973,
	9627704831, 740592679, 52899477, 3526631, 220414, 12965, 720, 37}

// logCoef are 1/(2k+1) in Q.62 (truncated), k = 0..12: the series of
// atanh on [0, 0.172] omits less than 2^-64.
var logCoef = [...]uint64{4611686018427387904, 1537228672809129301, 922337203685477580,
	658812288346769700, 512409557603043100, 419244183493398900, 354745078340568300,
	307445734561825860, 271275648142787523, 242720316759336205, 219604096115589900,
	200508087757712517, 184467440737095516}

// Exp returns e^a, within 0.54 raw steps or a relative 0.54·2^-40 of the true
// value, whichever is larger; it saturates to Max from a = 33 (e^32.58
// is already past Max) and is 0 below a = -12.
func Exp(a Num) Num {
	if a >= expHi {
		return Max
	}
	if a < expLo {
		return 0
	}
	// a = k·ln2 + r with r in [0, ln 2): e^a = 2^k · e^r.
	x := int64(a) << (48 - FracBits)
	k := x / ln2of48
	r := x - k*ln2of48
	if r < 0 {
		k--
		r += ln2of48
	}
	e := uint64(r) << 14 // Q.62
	p := expCoef[len(expCoef)-1]
	for n := len(expCoef) - 2; n >= 0; n-- {
		p = expCoef[n] + mul62(p, e)
	}
	// p is e^r in Q.62, in [2^62, 2^63); the result is p·2^k in Q.16.
	s := 62 - FracBits - k
	switch {
	case s < 0:
		return Max
	case s == 0:
		return Num(p)
	case s >= 64:
		return 0
	}
	return Num((p + 1<<(s-1)) >> s)
}

// Log returns the natural logarithm of a, within 0.51 raw steps of the true
// value; a <= 0 gives Min (the logarithm of 0 is -∞).
func Log(a Num) Num {
	if a <= 0 {
		return Min
	}
	// a = m·2^(e-16) with m in [1/√2, √2): ln a = (e-16)·ln 2 + ln m.
	u := uint64(a)
	e := int64(bits.Len64(u) - 1)
	m := u << (62 - e)
	if m > sqrt2of62 {
		m >>= 1
		e++
	}
	// ln m = 2·atanh(s), s = (m-1)/(m+1), |s| < 0.172.
	num := int64(m) - one62
	den := m + one62
	an := abs64(num)
	s, _ := bits.Div64(an>>2, an<<62, den)
	z := mul62(s, s)
	p := logCoef[len(logCoef)-1]
	for k := len(logCoef) - 2; k >= 0; k-- {
		p = logCoef[k] + mul62(p, z)
	}
	lm := int64(mul62(p, s) >> 21) // 2·ln|m| in Q.40
	if num < 0 {
		lm = -lm
	}
	v := (e-FracBits)*ln2of40 + lm
	return Num((v + 1<<(39-FracBits)) >> (40 - FracBits))
}

// mul62 returns a·b/2^62 for Q.62 operands, truncated.
func mul62(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi<<2 | lo>>62
}
