package codec_test

import (
	"testing"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/doomdemo"
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

func TestDemoInputBits(t *testing.T) {
	ticks := loadMatch(t)
	it, _ := codec.RegisterInput[doomInput]()
	ity, _ := codec.RegisterInput[doomInputYaw]()
	var st, sty [4]codec.InputState
	var w, wy codec.BitWriter
	pt := 0
	var buf [64]byte
	for _, tk := range ticks {
		for _, ev := range tk.Events {
			if ev.Join {
				it.ResetState(&st[ev.Player], nil)
				ity.ResetState(&sty[ev.Player], nil)
			}
		}
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
}
