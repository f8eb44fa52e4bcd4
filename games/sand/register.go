package sand

import (
	"math/rand/v2"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
)

// The sand game in the registry (package games): --game sand, its grid's
// side the setting grid.
func init() {
	games.Register(games.Def[Input]{
		Name:     "sand",
		Summary:  "falling sand: pour sand, water and walls on a shared grid",
		Settings: []games.Setting{{Name: "grid", Usage: "side of the sand grid, in cells (a sand player given neither --grid nor --tick-rate plays the host's)", Default: 256, Min: 8, Max: MaxSide}},
		New: func(v games.Values) (rewind.Game[Input], error) {
			return &Game{Side: v.Get("grid"), Rate: v.Get(games.TickRate)}, nil
		},
		Bot:    bot,
		Values: values,
		Sound:  Sound,
		Help:   "arrows/WASD move · space or mouse pours · 1–4: erase, sand, water, wall",
	})
}

// values are g's grid side and tick rate.
func values(g rewind.Game[Input]) games.Values {
	sg, ok := g.(*Game)
	if !ok {
		return nil
	}
	return games.Values{"grid": sg.side(), games.TickRate: sg.TickRate()}
}

// bot is sand's bot: Bot's script for the player's id (and the seed), or
// seeded random input that changes every 10-40 ticks.
func bot(kind string, seed uint64) func(rewind.PlayerID, uint32) Input {
	if kind == games.Scripted {
		return func(me rewind.PlayerID, t uint32) Input { return Bot(rewind.PlayerID(uint64(me)+seed), t) }
	}
	rng := rand.New(rand.NewPCG(seed, 0x72657769))
	var in Input
	next := uint32(0)
	return func(_ rewind.PlayerID, t uint32) Input {
		if t >= next {
			in = Input{
				MoveX:    int8(rng.IntN(3)) - 1,
				MoveY:    int8(rng.IntN(3)) - 1,
				Pour:     rng.IntN(2) == 0,
				Material: Material(rng.IntN(4)),
			}
			next = t + 10 + uint32(rng.IntN(31))
		}
		return in
	}
}
