package fixed

import (
	"math"
	"testing"
)

// Each benchmark runs the fixed-point operation and its float64
// counterpart over the same 1,024 inputs (sub-benchmarks fixed and
// float64); docs/benchmarks.md has the figures natively and in wasm.

const benchN = 1024

// benchInputs returns 1,024 pairs of Nums in [-lim, lim] (never zero) and
// the same values as float64.
func benchInputs(lim Num) (a, b []Num, fa, fb []float64) {
	rng := splitmix(7)
	for range benchN {
		x, y := rng.numIn(lim), rng.numIn(lim)
		if x == 0 {
			x = One
		}
		if y == 0 {
			y = One
		}
		a, b = append(a, x), append(b, y)
		fa, fb = append(fa, x.Float()), append(fb, y.Float())
	}
	return a, b, fa, fb
}

var (
	sinkN Num
	sinkF float64
	sinkV Vec
)

// benchUnary runs f and g over the inputs in [-lim, lim] (positive ones
// when pos).
func benchUnary(b *testing.B, lim Num, pos bool, f func(Num) Num, g func(float64) float64) {
	xs, _, fx, _ := benchInputs(lim)
	if pos {
		for i := range xs {
			xs[i], fx[i] = xs[i].Abs(), math.Abs(fx[i])
		}
	}
	b.Run("fixed", func(b *testing.B) {
		var s Num
		for i := 0; b.Loop(); i++ {
			s += f(xs[i%benchN])
		}
		sinkN = s
	})
	b.Run("float64", func(b *testing.B) {
		var s float64
		for i := 0; b.Loop(); i++ {
			s += g(fx[i%benchN])
		}
		sinkF = s
	})
}

// benchBinary is benchUnary for functions of two arguments.
func benchBinary(b *testing.B, lim Num, f func(Num, Num) Num, g func(float64, float64) float64) {
	xs, ys, fx, fy := benchInputs(lim)
	b.Run("fixed", func(b *testing.B) {
		var s Num
		for i := 0; b.Loop(); i++ {
			s += f(xs[i%benchN], ys[i%benchN])
		}
		sinkN = s
	})
	b.Run("float64", func(b *testing.B) {
		var s float64
		for i := 0; b.Loop(); i++ {
			s += g(fx[i%benchN], fy[i%benchN])
		}
		sinkF = s
	})
}

func BenchmarkAdd(b *testing.B) {
	benchBinary(b, FromInt(100_000), Num.Add, func(x, y float64) float64 { return x + y })
}

func BenchmarkMul(b *testing.B) {
	benchBinary(b, FromInt(1000), Num.Mul, func(x, y float64) float64 { return x * y })
}

func BenchmarkDiv(b *testing.B) {
	benchBinary(b, FromInt(1000), Num.Div, func(x, y float64) float64 { return x / y })
}

func BenchmarkSqrt(b *testing.B) { benchUnary(b, FromInt(100_000), true, Sqrt, math.Sqrt) }

func BenchmarkSin(b *testing.B) { benchUnary(b, FromInt(10), false, Sin, math.Sin) }

func BenchmarkCos(b *testing.B) { benchUnary(b, FromInt(10), false, Cos, math.Cos) }

func BenchmarkAtan2(b *testing.B) { benchBinary(b, FromInt(1000), Atan2, math.Atan2) }

func BenchmarkExp(b *testing.B) { benchUnary(b, FromInt(20), false, Exp, math.Exp) }

func BenchmarkLog(b *testing.B) { benchUnary(b, FromInt(100_000), true, Log, math.Log) }

func BenchmarkLength(b *testing.B) {
	benchBinary(b, FromInt(100_000), func(x, y Num) Num { return V(x, y).Length() }, math.Hypot)
}

func BenchmarkNormalize(b *testing.B) {
	benchBinary(b, FromInt(100_000), func(x, y Num) Num { return V(x, y).Normalize().X },
		func(x, y float64) float64 { return x / math.Hypot(x, y) })
}

func BenchmarkDot(b *testing.B) {
	benchBinary(b, FromInt(100_000), func(x, y Num) Num { return V(x, y).Dot(V(y, x)) },
		func(x, y float64) float64 { return float64(x*y) + float64(y*x) })
}

func BenchmarkRotate(b *testing.B) {
	xs, ys, fx, fy := benchInputs(FromInt(1000))
	b.Run("fixed", func(b *testing.B) {
		var s Vec
		for i := 0; b.Loop(); i++ {
			s = s.Add(V(xs[i%benchN], ys[i%benchN]).Rotate(ys[i%benchN] >> 8))
		}
		sinkV = s
	})
	b.Run("float64", func(b *testing.B) {
		var s float64
		for i := 0; b.Loop(); i++ {
			x, y, a := fx[i%benchN], fy[i%benchN], fy[i%benchN]/256
			sn, cs := math.Sincos(a)
			s += float64(x*cs) - float64(y*sn) + float64(x*sn) + float64(y*cs)
		}
		sinkF = s
	})
}
