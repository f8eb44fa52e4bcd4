package doomdemo

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// Synth builds a DOOM 1.9 demo of players players and tics tics.
func Synth(rng *rand.Rand, players, tics int) []byte {
	b := []byte{Version, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	for p := 0; p < players; p++ {
		b[9+p] = 1
	}
	for t := 0; t < tics*players; t++ {
		b = append(b, byte(rng.IntN(100)-50), byte(rng.IntN(80)-40), byte(rng.IntN(7)-3), byte(rng.IntN(4)))
	}
	for i := 13; i < len(b); i += 4 {
		if b[i] == endMarker {
			b[i] = 0
		}
	}
	return append(b, endMarker)
}

func TestParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d, err := Parse("x", Synth(rng, 3, 50))
	if err != nil || len(d.Players) != 3 || d.Tics() != 50 {
		t.Fatalf("%v %+v", err, d)
	}
	good := Synth(rng, 2, 10)
	for name, b := range map[string][]byte{
		"short":     good[:5],
		"version":   append([]byte{108}, good[1:]...),
		"no end":    good[:len(good)-1],
		"truncated": append(append([]byte{}, good[:len(good)-3]...), endMarker),
		"extra":     append(append([]byte{}, good...), 0),
		"ingame":    append(append([]byte{}, good[:9]...), append([]byte{2}, good[10:]...)...),
	} {
		if _, err := Parse(name, b); !errors.Is(err, ErrBadDemo) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var demos []*Demo
	total := 0
	for i, p := range []int{1, 4, 2, 3, 1} {
		d, err := Parse("d", Synth(rng, p, 20+i*7))
		if err != nil {
			t.Fatal(err)
		}
		demos = append(demos, d)
		total += p * d.Tics()
	}
	ticks := Match(demos)
	pt := 0
	var present [Slots]bool
	for i, tk := range ticks {
		for _, ev := range tk.Events {
			if present[ev.Player] == ev.Join {
				t.Fatalf("tick %d: event %+v for a player already so", i, ev)
			}
			present[ev.Player] = ev.Join
		}
		if present != tk.Present && !(i == len(ticks)-1) {
			t.Fatalf("tick %d: presence %v vs events %v", i, tk.Present, present)
		}
		for _, p := range tk.Present {
			if p {
				pt++
			}
		}
	}
	if pt != total {
		t.Fatalf("player ticks %d, want %d", pt, total)
	}
	if present != [Slots]bool{} {
		t.Fatal("players left at the end")
	}
}
