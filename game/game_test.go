package game

import (
	"errors"
	"testing"

	"github.com/rewindnet/rewind/world"
)

type rated struct{ r int }

func (g rated) TickRate() int { return g.r }

func TestRateOf(t *testing.T) {
	for _, c := range []struct {
		g    any
		want int
	}{{struct{}{}, 60}, {rated{30}, 30}, {rated{0}, 60}, {rated{-5}, 60}, {rated{5000}, 60}} {
		if got := RateOf(c.g); got != c.want {
			t.Errorf("RateOf(%v) = %d, want %d", c.g, got, c.want)
		}
	}
}

func TestFingerprintTellsApart(t *testing.T) {
	base := Fingerprint(1, 2, 60)
	if base != Fingerprint(1, 2, 60) {
		t.Fatal("not a function of its arguments")
	}
	for _, other := range []uint64{Fingerprint(3, 2, 60), Fingerprint(1, 3, 60), Fingerprint(1, 2, 30), Fingerprint(2, 1, 60)} {
		if other == base {
			t.Errorf("fingerprint %016x repeated for different games", other)
		}
	}
}

func TestEventKindString(t *testing.T) {
	if Join.String() != "join" || Leave.String() != "leave" || EventKind(9).String() != "unknown" {
		t.Fatal(Join.String(), Leave.String())
	}
}

type setupGame struct {
	regErr, setupErr error
	registers        int
}

func (g *setupGame) Register(*world.Schema) error       { g.registers++; return g.regErr }
func (g *setupGame) Setup(*world.World) error           { return g.setupErr }
func (g *setupGame) Step(*world.World, *Tick[struct{}]) {}

// TestNewWorld: a nil schema is made and registered, a given one is used
// as it is, and Register's and Setup's errors come back wrapped.
func TestNewWorld(t *testing.T) {
	g := &setupGame{}
	s, w, err := NewWorld[struct{}](g, nil)
	if err != nil || s == nil || w == nil || g.registers != 1 {
		t.Fatalf("NewWorld(nil) = %v, %v, %v after %d registers", s, w, err, g.registers)
	}
	s2, w2, err := NewWorld[struct{}](g, s)
	if err != nil || s2 != s || w2 == nil || w2 == w || g.registers != 1 {
		t.Fatalf("NewWorld(s) = %v, %v, %v after %d registers", s2, w2, err, g.registers)
	}
	boom := errors.New("boom")
	for _, bad := range []*setupGame{{regErr: boom}, {setupErr: boom}} {
		if _, _, err := NewWorld[struct{}](bad, nil); !errors.Is(err, boom) {
			t.Errorf("NewWorld returned %v, want the game's error", err)
		}
	}
}
