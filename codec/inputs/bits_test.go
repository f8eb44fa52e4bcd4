package inputs

import (
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

func TestBitsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type op struct {
		v     uint64
		n     uint
		gamma bool
	}
	var ops []op
	var w BitWriter
	w.Reset([]byte{0xAA})
	for i := 0; i < 5000; i++ {
		if rng.IntN(3) == 0 {
			v := rng.Uint64()>>rng.IntN(64) | 1
			ops = append(ops, op{v: v, gamma: true})
			w.WriteGamma(v)
			continue
		}
		n := uint(rng.IntN(65))
		v := rng.Uint64()
		if n < 64 {
			v &= 1<<n - 1
		}
		ops = append(ops, op{v: v, n: n})
		w.WriteBits(v, n)
	}
	bits := w.BitLen()
	b := w.Bytes()
	if len(b) != (bits+7)/8 || b[0] != 0xAA {
		t.Fatalf("length %d for %d bits", len(b), bits)
	}
	var r BitReader
	r.Reset(b[1:])
	for i, o := range ops {
		var got uint64
		if o.gamma {
			got = r.ReadGamma()
		} else {
			got = r.ReadBits(o.n)
		}
		if got != o.v || r.Err() != nil {
			t.Fatalf("op %d: got %x want %x (%v)", i, got, o.v, r.Err())
		}
	}
	r.ReadBits(8)
	if !errors.Is(r.Err(), io.ErrUnexpectedEOF) {
		t.Fatalf("read past end: %v", r.Err())
	}
	if r.ReadBits(3) != 0 {
		t.Fatal("read after error returned bits")
	}
}

func TestGammaLengths(t *testing.T) {
	for v, want := range map[uint64]int{1: 1, 2: 3, 3: 3, 4: 5, 7: 5, 8: 7, 1 << 63: 127} {
		var w BitWriter
		w.WriteGamma(v)
		if w.BitLen() != want {
			t.Errorf("gamma(%d) = %d bits, want %d", v, w.BitLen(), want)
		}
	}
	// 64 zero bits then a one: more than 64 significant bits.
	var r BitReader
	r.Reset([]byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})
	r.ReadGamma()
	if !errors.Is(r.Err(), ErrMalformed) {
		t.Fatalf("overlong gamma: %v", r.Err())
	}
}
