package inputs

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"
)

type wideIn struct {
	A int8
	B uint8
	C int16
	D uint16
	E int32
	F uint32
	G int64
	H uint64
	I float32
	J float64
	K bool
}

func randWide(rng *rand.Rand, v *wideIn) {
	pick := func(special []uint64) uint64 {
		if rng.IntN(3) == 0 {
			return special[rng.IntN(len(special))]
		}
		return rng.Uint64() >> rng.IntN(64)
	}
	sp := []uint64{0, 1, math.MaxUint64, 1 << 63, 1<<63 - 1, 0x80, 0x7F, 0x8000, 0x100, 0xFF00}
	switch rng.IntN(12) {
	case 0:
		v.A = int8(pick(sp))
	case 1:
		v.B = uint8(pick(sp))
	case 2:
		v.C = int16(pick(sp))
	case 3:
		v.D = uint16(pick(sp))
	case 4:
		v.E = int32(pick(sp))
	case 5:
		v.F = uint32(pick(sp))
	case 6:
		v.G = int64(pick(sp))
	case 7:
		v.H = pick(sp)
	case 8:
		v.I = math.Float32frombits(uint32(pick(sp)))
		if rng.IntN(2) == 0 {
			v.I = float32(rng.NormFloat64())
		}
	case 9:
		v.J = math.Float64frombits(pick(sp))
		if rng.IntN(2) == 0 {
			v.J += 0.5
		}
	case 10:
		v.K = !v.K
	}
}

func TestDeltaRoundTripRandom(t *testing.T) {
	it, err := NewType[wideIn]()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var enc, dec State
	it.ResetState(&enc, nil)
	it.ResetState(&dec, nil)
	var w BitWriter
	var want [][]byte
	v := wideIn{}
	for i := 0; i < 20000; i++ {
		for n := rng.IntN(4); n > 0; n-- {
			randWide(rng, &v)
		}
		p := it.Pack(make([]byte, it.Size()), &v)
		it.EncodeDelta(&w, &enc, p)
		want = append(want, p)
	}
	b := w.Bytes()
	var r BitReader
	r.Reset(b)
	for i, p := range want {
		if err := it.DecodeDelta(&r, &dec); err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if string(dec.Input()) != string(p) {
			t.Fatalf("%d: got %x want %x", i, dec.Input(), p)
		}
	}
	if enc != dec {
		t.Fatal("encoder and decoder states differ")
	}
	if r.Remaining() >= 8 {
		t.Fatalf("%d bits left", r.Remaining())
	}
}

func TestDeltaExtremes(t *testing.T) {
	it, _ := NewType[wideIn]()
	vals := []wideIn{
		{},
		{A: -128, B: 255, C: -32768, D: 65535, E: math.MinInt32, F: math.MaxUint32, G: math.MinInt64, H: math.MaxUint64,
			I: float32(math.Inf(-1)), J: math.NaN(), K: true},
		{A: 127, B: 0, C: 32767, D: 0, E: math.MaxInt32, F: 0, G: math.MaxInt64, H: 0, I: -0.0, J: math.SmallestNonzeroFloat64},
		{A: -128, C: -32768, E: math.MinInt32, G: math.MinInt64},
		{A: 1, C: 1 << 14, E: 1 << 30, G: 1 << 62},
		{A: -1, C: -1 << 14, E: -1 << 30, G: -1 << 62, J: -1},
	}
	for _, a := range vals {
		for _, b := range vals {
			var enc, dec State
			pa := it.Pack(make([]byte, it.Size()), &a)
			pb := it.Pack(make([]byte, it.Size()), &b)
			it.ResetState(&enc, pa)
			it.ResetState(&dec, pa)
			var w BitWriter
			it.EncodeDelta(&w, &enc, pb)
			it.EncodeDelta(&w, &enc, pa)
			it.EncodeDelta(&w, &enc, pb)
			var r BitReader
			r.Reset(w.Bytes())
			for i, want := range [][]byte{pb, pa, pb} {
				if err := it.DecodeDelta(&r, &dec); err != nil {
					t.Fatalf("%+v -> %+v step %d: %v", a, b, i, err)
				}
				if string(dec.Input()) != string(want) {
					t.Fatalf("%+v -> %+v step %d: got %x want %x", a, b, i, dec.Input(), want)
				}
			}
		}
	}
}

// TestDeltaCanonical checks that whatever DecodeDelta accepts re-encodes to
// the same bits (one encoding per value), on random bit strings.
func TestDeltaCanonical(t *testing.T) {
	it, _ := NewType[wideIn]()
	rng := rand.New(rand.NewPCG(3, 4))
	accepted := 0
	for i := 0; i < 20000; i++ {
		b := make([]byte, 1+rng.IntN(40))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		b[0] |= 1 // changed
		if rng.IntN(2) == 0 {
			b[0] &^= 2
		}
		// A context in mid-stream: a few random inputs coded first.
		var st State
		it.ResetState(&st, nil)
		var v wideIn
		var scratch BitWriter
		for n := rng.IntN(6); n > 0; n-- {
			randWide(rng, &v)
			it.EncodeDelta(&scratch, &st, it.Pack(make([]byte, it.Size()), &v))
		}
		before := st
		var r BitReader
		r.Reset(b)
		if err := it.DecodeDelta(&r, &st); err != nil {
			if st != before {
				t.Fatal("failed decode changed the state")
			}
			continue
		}
		accepted++
		used := r.pos
		enc := before
		var w BitWriter
		it.EncodeDelta(&w, &enc, st.Input())
		if uint(w.BitLen()) != used || enc != st {
			t.Fatalf("re-encoding: %d bits vs %d read", w.BitLen(), used)
		}
		out := w.Bytes()
		for bit := uint(0); bit < used; bit++ {
			if (out[bit/8]>>(bit%8))&1 != (b[bit/8]>>(bit%8))&1 {
				t.Fatalf("bit %d differs", bit)
			}
		}
	}
	if accepted < 100 {
		t.Fatalf("only %d random deltas accepted", accepted)
	}
}

func TestDeltaTruncation(t *testing.T) {
	it, ins := testInputs(t, 50)
	var enc State
	it.ResetState(&enc, nil)
	for i, p := range ins {
		before := enc
		var w BitWriter
		it.EncodeDelta(&w, &enc, p)
		n := w.BitLen()
		b := w.Bytes()
		for cut := 0; cut < n; cut++ {
			var r BitReader
			r.Reset(b)
			// Reading only cut bits: give a slice that ends there by
			// masking the remainder into a shorter reader.
			r.buf = b[:(cut+7)/8]
			dec := before
			err := it.DecodeDelta(&r, &dec)
			if err == nil && cut < n {
				// The cut may fall in the padding of the last byte only
				// when it ends inside the code, which must fail.
				if (cut+7)/8*8 < n {
					t.Fatalf("input %d cut at %d of %d bits decoded", i, cut, n)
				}
				continue
			}
			if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && (cut+7)/8*8 < n {
				t.Fatalf("input %d cut at %d: %v", i, cut, err)
			}
		}
	}
}

func TestDeltaZeroAlloc(t *testing.T) {
	it, ins := testInputs(t, 64)
	var enc, dec State
	it.ResetState(&enc, nil)
	it.ResetState(&dec, nil)
	var w BitWriter
	w.Reset(make([]byte, 0, 1<<16))
	i := 0
	if a := testing.AllocsPerRun(len(ins)-1, func() { it.EncodeDelta(&w, &enc, ins[i]); i++ }); a != 0 {
		t.Fatalf("EncodeDelta allocates %v", a)
	}
	var r BitReader
	r.Reset(w.Bytes())
	if a := testing.AllocsPerRun(len(ins)-1, func() {
		if err := it.DecodeDelta(&r, &dec); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Fatalf("DecodeDelta allocates %v", a)
	}
}
