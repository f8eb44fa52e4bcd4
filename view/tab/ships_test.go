package tab

import (
	"math"
	"reflect"
	"testing"
)

// TestArenaRoundTrip: a frame with an arena decodes to what was
// encoded, and every truncation of the arena is refused.
func TestArenaRoundTrip(t *testing.T) {
	f := Frame{Period: 16, Players: 2, Me: 1, Room: "SH1PS2", Arena: Arena{
		Ships: []ShipView{{Player: 1, X: -600 << 16, Y: 1 << 20, PX: 3, PY: -4, Angle: -205887, PAngle: 205887, Score: 3, Deaths: 1, Health: 75, Flash: 9},
			{Player: 6, Health: 0, Respawn: 119}},
		Shots: []ShotView{{Owner: 6, X: 10, Y: 20, PX: 9, PY: 19}},
		Hits:  []uint16{1, 1},
	}}
	b := f.AppendBinary(nil)
	var g Frame
	if err := g.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f, g) {
		t.Fatalf("decoded %+v, want %+v", g, f)
	}
	for n := len(b) - 40; n < len(b); n++ {
		if err := new(Frame).UnmarshalBinary(b[:n]); err == nil {
			t.Errorf("%d of %d bytes decoded without an error", n, len(b))
		}
	}
}

// TestShipsInputPack: every input survives Pack and UnpackShips.
func TestShipsInputPack(t *testing.T) {
	for i := range 12 {
		in := ShipsInput{Turn: int8(i%3) - 1, Thrust: i&4 != 0, Fire: i&8 != 0 || i == 3}
		if got := UnpackShips(in.Pack()); got != in {
			t.Errorf("%+v came back as %+v", in, got)
		}
	}
}

// TestShipViewAt: a ship's place moves linearly between its two ticks,
// and its heading turns the short way across ±π.
func TestShipViewAt(t *testing.T) {
	const pi = 205887 // π in raw units, rounded
	s := ShipView{PX: 0, X: 10 * raw, PY: -2 * raw, Y: 2 * raw, PAngle: pi - 100, Angle: -pi + 100}
	x, y, a := s.At(0.5)
	if x != 5 || y != 0 {
		t.Errorf("halfway at (%v, %v), want (5, 0)", x, y)
	}
	if math.Abs(a-math.Pi) > 0.001 {
		t.Errorf("halfway across π the heading is %v, want about π", a)
	}
	if px, py := ShipsPixel(-ShipsHalfArena, ShipsHalfArena, 36); px != 0 || py != 36 {
		t.Errorf("the arena's top left at (%v, %v)", px, py)
	}
}
