package rewind_test

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// Milestone is the kind of effect the Race game raises when a player's
// score passes a multiple of 50: the view plays a fanfare.
const Milestone uint16 = 1

// Race is the counting game with a fanfare: Step raises an effect instead
// of playing a sound, because Step runs again for every rollback.
type Race struct {
	scores world.Grid[int32]
}

func (r *Race) Register(s *world.Schema) error {
	r.scores = world.AddGrid[int32](s, "scores", rewind.MaxPlayers, 1)
	return s.Err()
}

func (r *Race) Setup(w *world.World) error { return nil }

func (r *Race) Step(w *world.World, t *rewind.Tick[Input]) {
	scores := r.scores.Cells(w)
	for p, in := range t.Inputs {
		if !t.Present[p] {
			continue
		}
		before := scores[p]
		scores[p] += int32(in.Add)
		if scores[p]/50 > before/50 {
			// The tick and the content are the effect's identity: the same
			// tick simulated again raises the same effect, and the view is
			// not told twice.
			t.Emit(rewind.Effect{Kind: Milestone, Args: [rewind.EffectArgs]int32{int32(p), scores[p] / 50 * 50}})
		}
	}
}

// ExampleSession_Effects raises a rollback-safe effect and drains it in a
// view: each effect is told once as predicted (play the fanfare now), then
// once as verified (the server agrees) or cancelled (a rollback took it
// back).
func ExampleSession_Effects() {
	s, err := rewind.Play[Input](&Race{}, rewind.Options{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	s.SetInput(Input{Add: 2})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	events := make([]rewind.EffectEvent, 0, 64) // reused every frame
	for range 1010 {
		now = now.Add(time.Millisecond)
		if err := s.Update(now); err != nil {
			panic(err)
		}
		// A frame of the view: draw (View), then take the effects.
		events = s.Effects(events[:0])
		for _, e := range events {
			if e.Effect.Kind == Milestone {
				fmt.Printf("tick %d: player %d reached %d (%v)\n", e.Tick, e.Effect.Args[0], e.Effect.Args[1], e.Status)
			}
		}
	}
	// Output:
	// tick 26: player 0 reached 50 (predicted)
	// tick 26: player 0 reached 50 (verified)
	// tick 51: player 0 reached 100 (predicted)
	// tick 51: player 0 reached 100 (verified)
}
