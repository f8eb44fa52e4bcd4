package sand

import (
	"bytes"
	"testing"

	"github.com/rewindnet/rewind/world"
)

// TestMatchSettings: the settings read back into the same game (the same
// world layout and tick rate), defaults and clamps applied; every bad
// encoding is refused.
func TestMatchSettings(t *testing.T) {
	for _, c := range []struct {
		g          *Game
		side, rate int
	}{
		{New(0), 256, 60},
		{&Game{Side: 48, Rate: 30}, 48, 30},
		{&Game{Side: 5000, Rate: 5000}, MaxSide, 60},
		{&Game{Side: 8, Rate: 1000}, 8, 1000},
	} {
		b := c.g.MatchSettings()
		got, err := c.g.WithMatchSettings(b)
		if err != nil {
			t.Fatalf("%+v: %v", c.g, err)
		}
		g := got.(*Game)
		if g.Side != c.side || g.TickRate() != c.rate || !bytes.Equal(g.MatchSettings(), b) {
			t.Errorf("%+v -> %x -> %+v, want side %d rate %d", c.g, b, g, c.side, c.rate)
		}
		if layout(t, g) != layout(t, c.g) {
			t.Errorf("%+v: the game of its settings has another world layout", c.g)
		}
	}
	for _, b := range [][]byte{nil, {2, 48, 30}, {1, 48}, {1, 48, 30, 0}, {1, 7, 30}, {1, 48, 0},
		{1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 30}, {1, 48, 0xe9, 0x07}, {1, 0xfc, 0x00, 0x30}} {
		if _, err := New(0).WithMatchSettings(b); err == nil {
			t.Errorf("settings %x accepted", b)
		}
	}
}

func layout(t *testing.T, g *Game) uint64 {
	t.Helper()
	s := world.NewSchema()
	if err := g.Register(s); err != nil {
		t.Fatal(err)
	}
	w, err := world.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return w.Layout().Hash()
}

// FuzzMatchSettings: the host's settings come from the network; whatever
// is accepted is a valid game that encodes back to the same bytes.
func FuzzMatchSettings(f *testing.F) {
	f.Add(New(0).MatchSettings())
	f.Add((&Game{Side: 48, Rate: 30}).MatchSettings())
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := New(0).WithMatchSettings(b)
		if err != nil {
			return
		}
		if out := g.(*Game).MatchSettings(); !bytes.Equal(out, b) {
			t.Fatalf("%x accepted, encodes as %x", b, out)
		}
	})
}
