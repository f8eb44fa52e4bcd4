package fixed

import (
	"math"
	"math/big"
	"testing"
)

// The accuracy tests compare each function with an exact computation
// (math/big) where the result is correctly rounded, and with math's
// float64 function elsewhere. Floats appear only here, in tests.

// splitmix is the seeded generator of the tests' random inputs (the same
// sequence on every platform).
type splitmix uint64

func (s *splitmix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// num returns a random Num whose magnitude is spread over every scale:
// a random number of its low bits, a random sign.
func (s *splitmix) num() Num {
	r := s.next()
	n := r >> 58 // 0..63 bits kept
	v := int64(s.next() >> (63 - n))
	if r&1 != 0 {
		v = -v
	}
	return Num(v)
}

// numIn returns a random Num in [-lim, lim].
func (s *splitmix) numIn(lim Num) Num {
	return Num(int64(s.next()%uint64(2*lim+1)) - int64(lim))
}

var (
	bigMax = big.NewInt(math.MaxInt64)
	bigMin = big.NewInt(math.MinInt64)
)

// bigRound returns n/d rounded to the nearest integer, ties away from
// zero, clamped to the int64 range.
func bigRound(n, d *big.Int) int64 {
	q, r := new(big.Int), new(big.Int)
	q.QuoRem(n, d, r) // truncated
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.Cmp(new(big.Int).Abs(d)) >= 0 {
		if n.Sign()*d.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if q.Cmp(bigMax) > 0 {
		return math.MaxInt64
	}
	if q.Cmp(bigMin) < 0 {
		return math.MinInt64
	}
	return q.Int64()
}

func TestMulDivExact(t *testing.T) {
	rng := splitmix(1)
	one := big.NewInt(1 << FracBits)
	for i := 0; i < 100000; i++ {
		a, b := rng.num(), rng.num()
		ba, bb := big.NewInt(int64(a)), big.NewInt(int64(b))
		if got, want := a.Mul(b), Num(bigRound(new(big.Int).Mul(ba, bb), one)); got != want {
			t.Fatalf("%d.Mul(%d) = %d, want %d", a, b, got, want)
		}
		if b == 0 {
			continue
		}
		if got, want := a.Div(b), Num(bigRound(new(big.Int).Mul(ba, one), bb)); got != want {
			t.Fatalf("%d.Div(%d) = %d, want %d", a, b, got, want)
		}
		c, d := rng.num(), rng.num()
		v, w := V(a, c), V(b, d)
		dot := new(big.Int).Add(new(big.Int).Mul(ba, bb), new(big.Int).Mul(big.NewInt(int64(c)), big.NewInt(int64(d))))
		if got, want := v.Dot(w), Num(bigRound(dot, one)); got != want {
			t.Fatalf("%v.Dot(%v) = %d, want %d", v, w, got, want)
		}
	}
}

// bigSqrtRound returns sqrt(n) rounded to the nearest integer.
func bigSqrtRound(n *big.Int) *big.Int {
	s := new(big.Int).Sqrt(n)
	rem := new(big.Int).Sub(n, new(big.Int).Mul(s, s))
	if rem.Cmp(s) > 0 {
		s.Add(s, big.NewInt(1))
	}
	return s
}

func TestSqrtLengthExact(t *testing.T) {
	rng := splitmix(2)
	for i := 0; i < 100000; i++ {
		a := rng.num()
		if a < 0 {
			a = -a
		}
		want := bigSqrtRound(new(big.Int).Lsh(big.NewInt(int64(a)), FracBits)).Int64()
		if got := Sqrt(a); int64(got) != want {
			t.Fatalf("Sqrt(%d) = %d, want %d", a, got, want)
		}
		v := V(rng.num(), rng.num())
		x, y := big.NewInt(int64(v.X)), big.NewInt(int64(v.Y))
		n := new(big.Int).Add(new(big.Int).Mul(x, x), new(big.Int).Mul(y, y))
		wl := bigSqrtRound(n)
		if wl.Cmp(bigMax) > 0 {
			wl = bigMax
		}
		if got := v.Length(); int64(got) != wl.Int64() {
			t.Fatalf("%v.Length() = %d, want %d", v, got, wl)
		}
	}
}

// maxErr returns the largest |f(x) - ref(x)| in raw steps over xs.
func maxErr(xs []Num, f func(Num) Num, ref func(float64) float64) (float64, Num) {
	worst, at := 0.0, Num(0)
	for _, x := range xs {
		e := math.Abs(f(x).Float()-ref(x.Float())) * (1 << FracBits)
		if e > worst {
			worst, at = e, x
		}
	}
	return worst, at
}

func TestTrigAccuracy(t *testing.T) {
	rng := splitmix(3)
	var xs []Num
	for i := 0; i < 200000; i++ {
		xs = append(xs, rng.numIn(FromInt(1000)))
		if x := rng.num(); x.Abs() < FromInt(1<<37) { // Float is exact below 2^37
			xs = append(xs, x)
		}
	}
	for i := Num(-4 * Pi); i <= 4*Pi; i += 7 {
		xs = append(xs, i)
	}
	for _, c := range []struct {
		name string
		f    func(Num) Num
		ref  func(float64) float64
		max  float64
	}{
		{"Sin", Sin, math.Sin, 0.51},
		{"Cos", Cos, math.Cos, 0.51},
	} {
		e, at := maxErr(xs, c.f, c.ref)
		t.Logf("%s: max error %.4f raw steps (at %v)", c.name, e, at)
		if e > c.max {
			t.Errorf("%s: max error %.4f raw steps at %v, over %v", c.name, e, at, c.max)
		}
	}
}

func TestAtan2Accuracy(t *testing.T) {
	rng := splitmix(4)
	worst := 0.0
	for i := 0; i < 200000; i++ {
		y, x := rng.num(), rng.num()
		if i%2 == 0 {
			y, x = rng.numIn(FromInt(100)), rng.numIn(FromInt(100))
		}
		want := math.Atan2(y.Float(), x.Float())
		e := math.Abs(Atan2(y, x).Float()-want) * (1 << FracBits)
		if e > worst {
			worst = e
		}
		if e > 0.51 {
			t.Fatalf("Atan2(%d, %d) = %v, want %v (%.3f raw steps)", y, x, Atan2(y, x), want, e)
		}
	}
	t.Logf("Atan2: max error %.4f raw steps", worst)
}

func TestExpLogAccuracy(t *testing.T) {
	rng := splitmix(5)
	worstE, worstL := 0.0, 0.0
	for i := 0; i < 200000; i++ {
		x := rng.numIn(34 << FracBits)
		want := math.Exp(x.Float()) * (1 << FracBits)
		got := float64(Exp(x))
		if want >= 0x1p63 {
			if Exp(x) != Max {
				t.Fatalf("Exp(%v) = %v, want Max", x, Exp(x))
			}
			continue
		}
		e := math.Abs(got-want) / math.Max(1, want*0x1p-40)
		worstE = math.Max(worstE, e)
		if e > 0.54 {
			t.Fatalf("Exp(%v) = %v, want %v", x, got, want)
		}
		y := rng.num()
		if y <= 0 {
			continue
		}
		el := math.Abs(Log(y).Float()-math.Log(y.Float())) * (1 << FracBits)
		worstL = math.Max(worstL, el)
		if el > 0.51 {
			t.Fatalf("Log(%v) = %v, want %v", y, Log(y), math.Log(y.Float()))
		}
	}
	t.Logf("Exp: max error %.4f (raw steps or relative 2^-40); Log: max error %.4f raw steps", worstE, worstL)
}
