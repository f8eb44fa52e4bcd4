package game

import "testing"

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
