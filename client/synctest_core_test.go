package client

import (
	"testing"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/world"
)

// TestSyncTestRunsTheCore: the sync test goes through the rollback
// machine's own paths: wrong guesses roll it back (restore, confirmed
// inputs, guesses), the players' joins change presence, effects are
// reported and verified, and every tick the check resimulates is
// resimulated by the machine.
func TestSyncTestRunsTheCore(t *testing.T) {
	g := &emitter{}
	st, err := NewSyncTest[testgame.Input](g, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]testgame.Input, 3)
	const ticks = 300
	verified := 0
	for tick := uint32(1); tick <= ticks; tick++ {
		for p := range in {
			in[p] = testgame.Bot(game.PlayerID(p), tick)
		}
		if err := st.Step(in); err != nil {
			t.Fatal(err)
		}
		for _, e := range st.fx {
			if e.Status == EffectVerified {
				verified++
			}
		}
	}
	c := st.c
	if c.rollbacks == 0 || c.rolledBack == 0 {
		t.Errorf("no rollback of the machine: %d rollbacks", c.rollbacks)
	}
	if c.verified != ticks || c.predicted != ticks {
		t.Errorf("verified %d predicted %d, want %d", c.verified, c.predicted, ticks)
	}
	for p, on := range c.presentV {
		if !on {
			t.Errorf("player %d not present after joining in tick 1", p)
		}
	}
	if verified != ticks {
		t.Errorf("%d effects verified, want one for each of %d ticks", verified, ticks)
	}
	if want := uint64(5 * (ticks - 2)); st.Resimulated != want {
		t.Errorf("resimulated %d ticks, want %d", st.Resimulated, want)
	}
	if st.World() != c.w || st.Tick() != ticks {
		t.Errorf("World/Tick not the machine's")
	}
}

// emitter is the test game raising one effect a tick.
type emitter struct{ testgame.Game }

func (g *emitter) Step(w *world.World, t *game.Tick[testgame.Input]) {
	g.Game.Step(w, t)
	t.Emit(game.Effect{Kind: 1, Args: [game.EffectArgs]int32{int32(t.Number)}})
}
