// Package detrun runs the sand game (games/sand) through a fixed script
// of four players who join, move, pour and leave, and reports the world's
// hash after every tick. The same script built natively and as js/wasm must
// give the same hashes: browser and desktop players share matches, so the
// simulation must give the same bytes on every platform (see
// docs/determinism.md). The test of this package builds sandtrace (the
// script as a program) for js/wasm, runs it under Node and compares.
package detrun

import (
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
)

// Players is the number of player slots the script uses.
const Players = 4

// presence says whether player p is in the match during tick t: each
// player joins at its own tick and leaves and comes back on its own
// schedule, so the run has joins and leaves all along.
func presence(p int, t uint32) bool {
	switch p {
	case 0: // from the start to the end
		return true
	case 1: // joins at 40, leaves at 3000, back at 5200
		return t >= 40 && (t < 3000 || t >= 5200)
	case 2: // joins at 700, leaves for good at 8100
		return t >= 700 && t < 8100
	default: // joins at 1500, away 4000..4400 and 7000..7050
		return t >= 1500 && (t < 4000 || t >= 4400) && (t < 7000 || t >= 7050)
	}
}

// Run steps a side×side sand game for ticks ticks under the script and
// calls fn with every tick's number and the world's hash after it.
func Run(side int, ticks uint32, fn func(tick uint32, hash uint64)) error {
	g := sand.New(side)
	_, w, err := game.NewWorld[sand.Input](g, nil)
	if err != nil {
		return err
	}
	tk := rewind.Tick[sand.Input]{
		Inputs:  make([]sand.Input, Players),
		Present: make([]bool, Players),
	}
	for t := uint32(1); t <= ticks; t++ {
		tk.Number = t
		tk.Events = tk.Events[:0]
		for p := range Players {
			now := presence(p, t)
			switch {
			case now && !tk.Present[p]:
				tk.Events = append(tk.Events, rewind.Event{Kind: rewind.Join, Player: rewind.PlayerID(p)})
			case !now && tk.Present[p]:
				tk.Events = append(tk.Events, rewind.Event{Kind: rewind.Leave, Player: rewind.PlayerID(p)})
			}
			tk.Present[p] = now
			tk.Inputs[p] = sand.Input{}
			if now {
				tk.Inputs[p] = sand.Bot(rewind.PlayerID(p), t)
			}
		}
		g.Step(w, &tk)
		fn(t, w.Hash())
	}
	return nil
}
