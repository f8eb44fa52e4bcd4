package sand

import (
	"testing"

	"github.com/rewindnet/rewind/codec"
)

// TestFromReplay builds sand from a header's match settings, else from
// its settings text, and refuses another game and settings out of range.
func TestFromReplay(t *testing.T) {
	g, err := FromReplay(codec.ReplayHeader{Game: "sand", MatchSettings: (&Game{Side: 64, Rate: 30}).MatchSettings(), Settings: "grid=128"})
	if err != nil || g.side() != 64 || g.TickRate() != 30 {
		t.Fatalf("match settings: %+v, %v", g, err)
	}
	g, err = FromReplay(codec.ReplayHeader{Game: "sand", Settings: "grid=32 tick-rate=20"})
	if err != nil || g.side() != 32 || g.TickRate() != 20 {
		t.Fatalf("settings text: %+v, %v", g, err)
	}
	g, err = FromReplay(codec.ReplayHeader{Game: "sand"})
	if err != nil || g.side() != 256 || g.TickRate() != 60 {
		t.Fatalf("no settings: %+v, %v", g, err)
	}
	for _, h := range []codec.ReplayHeader{{Game: "cards"}, {Game: "sand", Settings: "grid=4"}, {Game: "sand", Settings: "tick-rate=x"},
		{Game: "sand", MatchSettings: []byte{9}}} {
		if _, err := FromReplay(h); err == nil {
			t.Errorf("%+v: no error", h)
		}
	}
}
