package game

import (
	"slices"
	"testing"

	"github.com/rewindnet/rewind/world"
)

// boomGame raises an effect on every third tick, naming the tick.
type boomGame struct{ rated }

func (boomGame) Register(*world.Schema) error { return nil }
func (boomGame) Setup(*world.World) error     { return nil }
func (boomGame) Step(_ *world.World, t *Tick[int8]) {
	if t.Number%3 == 0 {
		t.Emit(Effect{Kind: 7, Args: [EffectArgs]int32{int32(t.Number)}})
		t.Emit(Effect{Kind: 8})
	}
}

func TestEmitWithoutCollectorDoesNothing(t *testing.T) {
	var tk Tick[int8]
	tk.Number = 3
	boomGame{}.Step(nil, &tk) // must not panic
	var got []Effect
	tk.CollectEffects(&got)
	boomGame{}.Step(nil, &tk)
	want := []Effect{{Kind: 7, Args: [EffectArgs]int32{3}}, {Kind: 8}}
	if !slices.Equal(got, want) {
		t.Fatalf("collected %v, want %v", got, want)
	}
	tk.CollectEffects(nil)
	boomGame{}.Step(nil, &tk)
	if len(got) != 2 {
		t.Fatalf("Emit still collected after CollectEffects(nil): %v", got)
	}
}

func TestWithEffects(t *testing.T) {
	type rec struct {
		tick uint32
		fx   []Effect
	}
	var seen []rec
	g := WithEffects[int8](boomGame{rated{30}}, func(tick uint32, fx []Effect) {
		seen = append(seen, rec{tick, slices.Clone(fx)})
	})
	if RateOf(g) != 30 {
		t.Fatalf("wrapped game's tick rate %d, want 30", RateOf(g))
	}
	var tk Tick[int8]
	for n := uint32(1); n <= 6; n++ {
		tk.Number = n
		g.Step(nil, &tk)
	}
	if len(seen) != 6 {
		t.Fatalf("fn called %d times, want 6", len(seen))
	}
	for _, r := range seen {
		if want := map[bool]int{true: 2, false: 0}[r.tick%3 == 0]; len(r.fx) != want {
			t.Errorf("tick %d: %d effects, want %d", r.tick, len(r.fx), want)
		}
	}

	// With an engine collecting too, the effects reach both.
	var engine []Effect
	tk.CollectEffects(&engine)
	tk.Number = 9
	g.Step(nil, &tk)
	if len(engine) != 2 || !slices.Equal(engine, seen[len(seen)-1].fx) {
		t.Fatalf("engine got %v, fn got %v", engine, seen[len(seen)-1].fx)
	}
}
