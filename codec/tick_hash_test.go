package codec

import (
	"testing"

	"github.com/rewindnet/rewind/codec/inputs"
)

// TestPatchTickHash encodes ticks with one hash, patches another in, and
// checks that the decoder reads the patched hash and everything else as
// encoded, for several hash widths and bodies of events and inputs.
func TestPatchTickHash(t *testing.T) {
	type in struct{ A, B int16 }
	for _, bits := range []uint8{0, 1, 13, 32, 64} {
		it, err := inputs.NewType[in]()
		if err != nil {
			t.Fatal(err)
		}
		enc := NewTickEncoder(it.Schema, bits)
		dec := NewTickDecoder(it.Schema, bits)
		buf := make([]byte, it.Size())
		for tick := range 20 {
			if tick == 0 {
				_ = enc.Join(3)
				_ = enc.Join(9)
			}
			buf = it.Pack(buf, &in{A: int16(tick * 7), B: -int16(tick)})
			if err := enc.SetInput(3, buf); err != nil {
				t.Fatal(err)
			}
			body := enc.AppendTick(nil, 0x0123456789abcdef)
			want := uint64(0xfedcba9876543210) ^ uint64(tick)
			PatchTickHash(body, enc.HashBitOffset(), enc.HashBits(), want)
			var tk Tick
			if err := dec.DecodeTick(body, &tk); err != nil {
				t.Fatalf("bits %d tick %d: %v", bits, tick, err)
			}
			mask := uint64(1)<<bits - 1
			if bits == 64 {
				mask = ^uint64(0)
			}
			if tk.Hash != want&mask {
				t.Fatalf("bits %d tick %d: hash %x, want %x", bits, tick, tk.Hash, want&mask)
			}
			var got in
			it.Unpack(dec.Roster().Input(3), &got)
			if got.A != int16(tick*7) || got.B != -int16(tick) {
				t.Fatalf("bits %d tick %d: input %+v", bits, tick, got)
			}
		}
	}
}
