package tab

import (
	"reflect"
	"testing"
)

// TestFrameRoundTrip: a frame decodes to what was encoded, and a
// truncated encoding is refused.
func TestFrameRoundTrip(t *testing.T) {
	f := Frame{At: 1.75e12, Alpha: 0.5, Period: 16, Side: 3, Cells: []byte{0, 1, 2, 3, 0, 1, 2, 3, 3},
		Avatars: []Avatar{{Player: 2, X: 256, Y: -5, PX: 250, PY: -7}, {Player: 7, X: 1 << 20}},
		Players: 2, Me: -1, Pours: []uint16{2}, Room: "K3F9QX", Ping: 1.5, Predicted: 1200, Verified: 1190,
		Rollbacks: 4, Resyncs: 1, RolledBack: 90, BytesIn: 1 << 30, BytesOut: 77, Spectating: true, Delay: 3000, Done: true, Stopped: "tick 9 desynced", Waiting: "Waiting for: ann…"}
	b := f.AppendBinary(nil)
	var g Frame
	if err := g.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f, g) {
		t.Fatalf("decoded %+v, want %+v", g, f)
	}
	for _, n := range []int{0, 10, len(b) - 1} {
		if err := new(Frame).UnmarshalBinary(b[:n]); err == nil {
			t.Errorf("%d of %d bytes decoded without an error", n, len(b))
		}
	}
	if a := f.AlphaAt(f.At + f.Period/4); a != 0.75 {
		t.Errorf("AlphaAt a quarter tick on: %v, want 0.75", a)
	}
	if a := f.AlphaAt(f.At + 10*f.Period); a != 1 {
		t.Errorf("AlphaAt ten ticks on: %v, want 1", a)
	}
}

// TestInputPack: every input survives Pack and UnpackInput.
func TestInputPack(t *testing.T) {
	for x := int8(-1); x <= 1; x++ {
		for y := int8(-1); y <= 1; y++ {
			for m := uint8(0); m < 4; m++ {
				for _, p := range []bool{false, true} {
					in := Input{MoveX: x, MoveY: y, Pour: p, Material: m}
					if got := UnpackInput(in.Pack()); got != in {
						t.Errorf("%+v came back as %+v", in, got)
					}
				}
			}
		}
	}
}
