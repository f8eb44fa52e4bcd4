package inputs

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

type Weapon uint8

func TestRegisterErrors(t *testing.T) {
	type withString struct {
		A    int8
		Name string
	}
	type withSlice struct{ Xs []int }
	type withPtr struct{ P *int }
	type badTag struct {
		A int8 `rewind:"min=5,max=1"`
	}
	type unknownOpt struct {
		A int8 `rewind:"clamp"`
	}
	type boolBounds struct {
		B bool `rewind:"min=0"`
	}
	type enumFloat struct {
		F float32 `rewind:"enum,min=0,max=1"`
	}
	type enumNoMax struct {
		W Weapon `rewind:"enum,min=0"`
	}
	type tooWide struct {
		A int8 `rewind:"max=300"`
	}
	type empty struct{}
	type plainInt struct {
		A int8
		X int
	}
	type plainUint struct{ U uint }
	type ptrWide struct{ P uintptr }
	for _, c := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[withString](), "Name"},
		{reflect.TypeFor[withSlice](), "Xs"},
		{reflect.TypeFor[withPtr](), "P"},
		{reflect.TypeFor[badTag](), "A"},
		{reflect.TypeFor[unknownOpt](), "clamp"},
		{reflect.TypeFor[boolBounds](), "B"},
		{reflect.TypeFor[enumFloat](), "F"},
		{reflect.TypeFor[enumNoMax](), "W"},
		{reflect.TypeFor[tooWide](), "A"},
		{reflect.TypeFor[empty](), "no fields"},
		{reflect.TypeFor[int](), "not a struct"},
		{reflect.TypeFor[plainInt](), "X is int, whose width follows the platform (4 bytes in wasm, 8 natively): use int32 or int64"},
		{reflect.TypeFor[plainUint](), "U is uint, whose width follows the platform (4 bytes in wasm, 8 natively): use uint32 or uint64"},
		{reflect.TypeFor[ptrWide](), "P is uintptr, whose width follows the platform (4 bytes in wasm, 8 natively): use uint32 or uint64"},
	} {
		_, err := NewSchema(c.typ)
		if !errors.Is(err, ErrBadSchema) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want ErrBadSchema naming %q", c.typ, err, c.want)
		}
	}
}

type sanIn struct {
	I8  int8    `rewind:"min=-10,max=10"`
	U16 uint16  `rewind:"min=5,max=500"`
	W   Weapon  `rewind:"enum,min=1,max=7"`
	E   int32   `rewind:"enum,min=-2,max=2"`
	F32 float32 `rewind:"min=-1.5,max=1.5"`
	F64 float64 //
	Pos float64 `rewind:"min=1,max=2"`
	B   bool    //
	Raw int64   //
}

func TestSanitize(t *testing.T) {
	it, err := NewType[sanIn]()
	if err != nil {
		t.Fatal(err)
	}
	ok := sanIn{I8: 3, U16: 5, W: 1, E: 0, F32: 0.5, F64: -7, Pos: 1.5, B: true, Raw: math.MinInt64}
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name string
		in   func(*sanIn)
		want func(*sanIn)
		err  error
	}{
		{"valid", func(*sanIn) {}, func(*sanIn) {}, nil},
		{"int low", func(v *sanIn) { v.I8 = -128 }, func(v *sanIn) { v.I8 = -10 }, nil},
		{"int high", func(v *sanIn) { v.I8 = 11 }, func(v *sanIn) { v.I8 = 10 }, nil},
		{"uint low", func(v *sanIn) { v.U16 = 0 }, func(v *sanIn) { v.U16 = 5 }, nil},
		{"uint high", func(v *sanIn) { v.U16 = 65535 }, func(v *sanIn) { v.U16 = 500 }, nil},
		{"enum high", func(v *sanIn) { v.W = 8 }, nil, ErrBadEnum},
		{"enum low", func(v *sanIn) { v.W = 0 }, nil, ErrBadEnum},
		{"enum signed", func(v *sanIn) { v.E = -3 }, nil, ErrBadEnum},
		{"enum edge", func(v *sanIn) { v.E = -2; v.W = 7 }, func(v *sanIn) { v.E = -2; v.W = 7 }, nil},
		{"f32 NaN", func(v *sanIn) { v.F32 = float32(nan) }, func(v *sanIn) { v.F32 = 0 }, nil},
		{"f32 +Inf", func(v *sanIn) { v.F32 = float32(inf) }, func(v *sanIn) { v.F32 = 0 }, nil},
		{"f32 high", func(v *sanIn) { v.F32 = 2 }, func(v *sanIn) { v.F32 = 1.5 }, nil},
		{"f32 low", func(v *sanIn) { v.F32 = -1e30 }, func(v *sanIn) { v.F32 = -1.5 }, nil},
		{"f64 NaN", func(v *sanIn) { v.F64 = nan }, func(v *sanIn) { v.F64 = 0 }, nil},
		{"f64 -Inf", func(v *sanIn) { v.F64 = -inf }, func(v *sanIn) { v.F64 = 0 }, nil},
		{"f64 unbounded huge", func(v *sanIn) { v.F64 = 1e300 }, func(v *sanIn) { v.F64 = 1e300 }, nil},
		{"NaN into bounds", func(v *sanIn) { v.Pos = nan }, func(v *sanIn) { v.Pos = 1 }, nil},
		{"neg zero kept", func(v *sanIn) { v.F64 = math.Copysign(0, -1) }, func(v *sanIn) { v.F64 = math.Copysign(0, -1) }, nil},
	} {
		v := ok
		c.in(&v)
		err := it.SanitizeValue(&v)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%s: err = %v, want %v", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		w := ok
		c.want(&w)
		if math.Float64bits(v.F64) != math.Float64bits(w.F64) || v.I8 != w.I8 || v.U16 != w.U16 || v.W != w.W ||
			v.E != w.E || v.F32 != w.F32 || v.Pos != w.Pos || v.B != w.B || v.Raw != w.Raw {
			t.Errorf("%s: got %+v want %+v", c.name, v, w)
		}
	}
	// A bool byte other than 0/1 in the packed form becomes 1.
	p := it.Pack(make([]byte, it.Size()), &ok)
	p[len(p)-9] = 7
	if err := it.Sanitize(p); err != nil || p[len(p)-9] != 1 {
		t.Fatalf("bool byte 7: %v, %d", err, p[len(p)-9])
	}
	if err := it.Sanitize(p[:3]); !errors.Is(err, ErrSize) {
		t.Fatalf("short input: %v", err)
	}
}

func TestPackUnpack(t *testing.T) {
	it, _ := NewType[sanIn]()
	v := sanIn{I8: -3, U16: 400, W: 2, E: -1, F32: -0.25, F64: math.Pi, Pos: 1.25, B: true, Raw: -1 << 60}
	p := it.Pack(make([]byte, 64), &v)
	if len(p) != it.Size() || it.Size() != 1+2+1+4+4+8+8+1+8 {
		t.Fatalf("packed size %d", len(p))
	}
	var got sanIn
	it.Unpack(p, &got)
	if got != v {
		t.Fatalf("got %+v want %+v", got, v)
	}
	if allocs := testing.AllocsPerRun(100, func() { it.Pack(p, &v); it.Unpack(p, &got) }); allocs != 0 {
		t.Fatalf("Pack/Unpack allocate %v", allocs)
	}
	it2, _ := NewType[testInput]()
	if it.Fingerprint() == it2.Fingerprint() || it.Fingerprint() == 0 {
		t.Fatal("fingerprints should differ")
	}
	it3, _ := NewType[sanIn]()
	if it.Fingerprint() != it3.Fingerprint() {
		t.Fatal("fingerprint not stable")
	}
}
