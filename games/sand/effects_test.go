package sand

import (
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// TestPourEffect: a pour raises one EffectPour when it starts, none while
// it goes on, and raising effects leaves the world exactly as it is
// without anyone collecting them.
func TestPourEffect(t *testing.T) {
	run := func(collect bool) (uint64, []rewind.Effect, []uint32) {
		g := New(32)
		s := world.NewSchema()
		if err := g.Register(s); err != nil {
			t.Fatal(err)
		}
		w, err := world.New(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Setup(w); err != nil {
			t.Fatal(err)
		}
		tk := rewind.Tick[Input]{Inputs: make([]Input, 2), Present: []bool{true, true}}
		var fx, all []rewind.Effect
		var ticks []uint32
		if collect {
			tk.CollectEffects(&fx)
		}
		for i := uint32(1); i <= 60; i++ {
			tk.Number = i
			tk.Events = nil
			if i == 1 {
				tk.Events = []rewind.Event{{Kind: rewind.Join, Player: 0}, {Kind: rewind.Join, Player: 1}}
			}
			// Player 0 pours in ticks 10-19 and 30-39, player 1 from 50 on.
			tk.Inputs[0] = Input{Pour: i%20 >= 10 && i < 40, Material: Sand}
			tk.Inputs[1] = Input{Pour: i >= 50, Material: Water}
			fx = fx[:0]
			g.Step(w, &tk)
			for _, e := range fx {
				all = append(all, e)
				ticks = append(ticks, i)
			}
		}
		return w.Hash(), all, ticks
	}
	quiet, none, _ := run(false)
	loud, fx, ticks := run(true)
	if quiet != loud {
		t.Fatalf("collecting effects changed the world: %016x vs %016x", quiet, loud)
	}
	if len(none) != 0 {
		t.Fatalf("effects collected without a collector: %v", none)
	}
	want := []struct {
		tick     uint32
		player   int32
		material Material
	}{{10, 0, Sand}, {30, 0, Sand}, {50, 1, Water}}
	if len(fx) != len(want) {
		t.Fatalf("effects %v in ticks %v, want %v", fx, ticks, want)
	}
	for i, w := range want {
		if fx[i].Kind != EffectPour || ticks[i] != w.tick || fx[i].Args[0] != w.player || Material(fx[i].Args[1]) != w.material {
			t.Errorf("effect %d: %v in tick %d, want a pour by %d of %d in tick %d", i, fx[i], ticks[i], w.player, w.material, w.tick)
		}
	}
}
