package fixed_test

import (
	"fmt"

	"github.com/rewindnet/rewind/fixed"
)

// A ship's position, velocity and heading advance one 60 Hz tick: the
// same bits on every machine.
func Example() {
	pos := fixed.VInt(100, 200)
	heading := fixed.HalfPi / 2 // 45°
	speed := fixed.FromInt(120) // units per second
	perTick := speed.Div(fixed.FromInt(60))
	vel := fixed.FromAngle(heading).Scale(perTick)
	for range 60 {
		pos = pos.Add(vel)
	}
	fmt.Println(pos.X, pos.Y)
	// Output: 184.8529052734375 284.8529052734375
}

func ExampleNum_Mul() {
	a := fixed.FromFrac(3, 2) // 1.5
	b := fixed.FromFrac(-5, 4)
	fmt.Println(a.Mul(b), fixed.Max.Mul(fixed.FromInt(2)) == fixed.Max)
	// Output: -1.875 true
}

func ExampleNum_Div() {
	fmt.Println(fixed.FromInt(2).Div(fixed.FromInt(3)), fixed.One.Div(0) == fixed.Max)
	// Output: 0.6666717529296875 true
}

func ExampleNum_Add() {
	fmt.Println(fixed.Max.Add(fixed.One) == fixed.Max, fixed.FromInt(2).Add(fixed.Half))
	// Output: true 2.5
}

func ExampleSqrt() {
	fmt.Println(fixed.Sqrt(fixed.FromInt(2)), fixed.Sqrt(fixed.FromInt(10_000_000_000)))
	// Output: 1.414215087890625 100000
}

func ExampleSin() {
	fmt.Println(fixed.Sin(fixed.HalfPi), fixed.Sin(fixed.Pi/6), fixed.Cos(fixed.Pi))
	// Output: 1 0.5 -1
}

func ExampleAtan2() {
	fmt.Println(fixed.Atan2(fixed.One, fixed.One), fixed.Atan2(0, -fixed.One) == fixed.Pi)
	// Output: 0.785400390625 true
}

func ExampleExp() {
	fmt.Println(fixed.Exp(fixed.One), fixed.Log(fixed.E))
	// Output: 2.7182769775390625 1
}

func ExampleVec_Length() {
	v := fixed.VInt(3, 4)
	fmt.Println(v.Length(), v.Normalize())
	// Output: 5 {0.600006103515625 0.8000030517578125}
}

func ExampleVec_Rotate() {
	v := fixed.VInt(10, 0).Rotate(fixed.HalfPi)
	fmt.Println(v.X, v.Y)
	// Output: 0 10
}

func ExampleVec_Dot() {
	a, b := fixed.VInt(1, 2), fixed.VInt(3, -4)
	fmt.Println(a.Dot(b), a.Cross(b))
	// Output: -5 -10
}

func ExampleNum_Float() {
	// For drawing only: the simulation keeps the Num.
	x := fixed.FromFrac(1, 3)
	fmt.Printf("%.4f %d\n", x.Float(), x.Raw())
	// Output: 0.3333 21845
}
