package codec_test

import (
	"math"
	"testing"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/internal/tools/doomdemo"
)

// doomInput is the mapping of a DOOM tic to an input struct.
type doomInput struct {
	Forward   int8
	Side      int8
	AngleTurn int16
	Buttons   uint8
}

// doomInputYaw adds the accumulated turn as a float32.
type doomInputYaw struct {
	Forward   int8
	Side      int8
	AngleTurn int16
	Buttons   uint8
	Yaw       float32
}

func loadMatch(t testing.TB) []doomdemo.Tick {
	demos, err := doomdemo.LoadDir("../testdata/doom-demos")
	if err != nil {
		t.Fatal(err)
	}
	return doomdemo.Match(demos)
}

// resetJoined calls reset for every player who joins at tk.
func resetJoined(tk doomdemo.Tick, reset func(player int)) {
	for _, ev := range tk.Events {
		if ev.Join {
			reset(int(ev.Player))
		}
	}
}

func TestDemoInputBits(t *testing.T) {
	ticks := loadMatch(t)
	it, _ := inputs.NewType[doomInput]()
	ity, _ := inputs.NewType[doomInputYaw]()
	var st, sty [4]inputs.State
	var w, wy inputs.BitWriter
	pt := 0
	var buf [64]byte
	for _, tk := range ticks {
		resetJoined(tk, func(p int) {
			it.ResetState(&st[p], nil)
			ity.ResetState(&sty[p], nil)
		})
		for s := 0; s < 4; s++ {
			if !tk.Present[s] {
				continue
			}
			tic := tk.Input[s]
			in := doomInput{tic.Forward, tic.Side, int16(uint16(uint8(tic.AngleTurn)) << 8), tic.Buttons}
			it.EncodeDelta(&w, &st[s], it.Pack(buf[:], &in))
			iny := doomInputYaw{in.Forward, in.Side, in.AngleTurn, in.Buttons, tk.Yaw[s]}
			ity.EncodeDelta(&wy, &sty[s], ity.Pack(buf[:], &iny))
			pt++
		}
	}
	t.Logf("player ticks %d: %.3f B/player-tick, with yaw %.3f", pt, float64(w.BitLen())/8/float64(pt), float64(wy.BitLen())/8/float64(pt))

	// Decode both streams and compare every value, bit for bit.
	var r, ry inputs.BitReader
	r.Reset(w.Bytes())
	ry.Reset(wy.Bytes())
	for i := range st {
		it.ResetState(&st[i], nil)
		ity.ResetState(&sty[i], nil)
	}
	for n, tk := range ticks {
		resetJoined(tk, func(p int) {
			it.ResetState(&st[p], nil)
			ity.ResetState(&sty[p], nil)
		})
		for s := 0; s < 4; s++ {
			if !tk.Present[s] {
				continue
			}
			if err := it.DecodeDelta(&r, &st[s]); err != nil {
				t.Fatalf("tick %d player %d: %v", n, s, err)
			}
			if err := ity.DecodeDelta(&ry, &sty[s]); err != nil {
				t.Fatalf("tick %d player %d (yaw): %v", n, s, err)
			}
			var got doomInput
			var goty doomInputYaw
			it.Unpack(st[s].Input(), &got)
			ity.Unpack(sty[s].Input(), &goty)
			tic := tk.Input[s]
			want := doomInput{tic.Forward, tic.Side, int16(uint16(uint8(tic.AngleTurn)) << 8), tic.Buttons}
			wanty := doomInputYaw{want.Forward, want.Side, want.AngleTurn, want.Buttons, tk.Yaw[s]}
			if got != want || math.Float32bits(goty.Yaw) != math.Float32bits(wanty.Yaw) || goty.AngleTurn != want.AngleTurn {
				t.Fatalf("tick %d player %d: got %+v / %+v, want %+v / %+v", n, s, got, goty, want, wanty)
			}
		}
	}
}

func demoBodies(b testing.TB) (*inputs.Type[doomInput], []doomdemo.Tick, [][]byte, int) {
	ticks := loadMatch(b)
	it, _ := inputs.NewType[doomInput]()
	e := codec.NewTickEncoder(it.Schema, 8)
	var bodies [][]byte
	pt := 0
	var buf [64]byte
	for i := range ticks {
		feed(b, e, it, &ticks[i], buf[:])
		for _, p := range ticks[i].Present {
			if p {
				pt++
			}
		}
		bodies = append(bodies, e.AppendTick(nil, uint64(i)))
	}
	return it, ticks, bodies, pt
}

func feed(b testing.TB, e *codec.TickEncoder, it *inputs.Type[doomInput], tk *doomdemo.Tick, buf []byte) {
	for _, ev := range tk.Events {
		if ev.Join {
			e.Join(ev.Player)
		} else {
			e.Leave(ev.Player)
		}
	}
	for s := 0; s < 4; s++ {
		if tk.Present[s] {
			tic := tk.Input[s]
			in := doomInput{tic.Forward, tic.Side, int16(uint16(uint8(tic.AngleTurn)) << 8), tic.Buttons}
			if err := e.SetInput(uint8(s), it.Pack(buf, &in)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDemoEncode reports ns per player-tick of the server's tick
// encoding over the DOOM demo match.
func BenchmarkDemoEncode(b *testing.B) {
	it, ticks, _, pt := demoBodies(b)
	out := make([]byte, 0, 256)
	var buf [64]byte
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		e := codec.NewTickEncoder(it.Schema, 8)
		for i := range ticks {
			feed(b, e, it, &ticks[i], buf[:])
			out = e.AppendTick(out[:0], uint64(i))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pt), "ns/player-tick")
}

// BenchmarkDemoDecode reports ns per player-tick of a client's tick
// decoding over the DOOM demo match.
func BenchmarkDemoDecode(b *testing.B) {
	it, _, bodies, pt := demoBodies(b)
	tk := codec.Tick{Events: make([]codec.Event, 0, codec.MaxEvents)}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		d := codec.NewTickDecoder(it.Schema, 8)
		for _, body := range bodies {
			if err := d.DecodeTick(body, &tk); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pt), "ns/player-tick")
}
