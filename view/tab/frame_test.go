package tab

import (
	"reflect"
	"testing"

	"github.com/rewindnet/rewind/draw"
)

// TestFrameRoundTrip: a frame decodes to what was encoded, and a
// truncated encoding is refused.
func TestFrameRoundTrip(t *testing.T) {
	var l draw.List
	l.Clear(draw.RGB(1, 2, 3))
	l.Text(4, 16, "hello", draw.White)
	f := Frame{At: 1.75e12, Alpha: 0.5, Period: 16, Width: 512, Height: 300, List: l.AppendBinary(nil),
		Me: -1, Room: "K3F9QX", Ping: 1.5, Predicted: 1200, Verified: 1190,
		Rollbacks: 4, Resyncs: 1, Players: 3, RolledBack: 90, BytesIn: 1 << 30, BytesOut: 77, Spectating: true, Delay: 3000, Done: true, Stopped: "tick 9 desynced", Waiting: "Waiting for: ann…"}
	b := f.AppendBinary(nil)
	var g Frame
	if err := g.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f, g) {
		t.Fatalf("decoded %+v, want %+v", g, f)
	}
	for n := range len(b) {
		if err := new(Frame).UnmarshalBinary(b[:n]); err == nil {
			t.Errorf("%d of %d bytes decoded without an error", n, len(b))
		}
	}
	if err := new(Frame).UnmarshalBinary(append(b, 0)); err == nil {
		t.Error("a trailing byte decoded without an error")
	}
	if a := f.AlphaAt(f.At + f.Period/4); a != 0.75 {
		t.Errorf("AlphaAt a quarter tick on: %v, want 0.75", a)
	}
	if a := f.AlphaAt(f.At + 10*f.Period); a != 1 {
		t.Errorf("AlphaAt ten ticks on: %v, want 1", a)
	}
}

// FuzzFrame: any bytes decode to a frame or an error, never a panic;
// a decoded frame's encoding decodes to the same frame.
func FuzzFrame(f *testing.F) {
	var l draw.List
	l.FillRect(1, 2, 3, 4, draw.White)
	f.Add((&Frame{Room: "K3F9QX", Width: 64, Height: 64, List: l.AppendBinary(nil)}).AppendBinary(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		var fr Frame
		if fr.UnmarshalBinary(b) != nil {
			return
		}
		var again Frame
		enc := fr.AppendBinary(nil)
		if err := again.UnmarshalBinary(enc); err != nil || string(again.AppendBinary(nil)) != string(enc) {
			t.Fatalf("re-encoded: %v, %+v, was %+v", err, again, fr)
		}
	})
}
