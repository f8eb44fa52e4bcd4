package walkers

import (
	"math/rand/v2"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
)

// The walkers game in the registry (package games): --game walkers.
func init() {
	games.Register(games.Def[Input]{
		Name:             "walkers",
		Summary:          "walkers: players walk to the point they click on a field",
		New:              func(games.Values) (rewind.Game[Input], error) { return New(), nil },
		Bot:              bot,
		Destination:      func(x, y int32) Input { return Input{X: x, Y: y, Move: true} },
		DestinationBound: HalfField,
		Help:             "click or touch: walk there · arrows/WASD walk 2 m that way",
	})
}

// bot is walkers' bot: Bot's script for the player's id (and the seed),
// or a seeded random destination within ±20 m every 30-120 ticks.
func bot(kind string, seed uint64) func(rewind.PlayerID, uint32) Input {
	if kind == games.Scripted {
		return func(me rewind.PlayerID, t uint32) Input { return Bot(rewind.PlayerID(uint64(me)+seed), t) }
	}
	rng := rand.New(rand.NewPCG(seed, 0x72657769))
	var in Input
	next := uint32(0)
	return func(_ rewind.PlayerID, t uint32) Input {
		if t >= next {
			in = Input{X: int32(rng.IntN(4001)) - 2000, Y: int32(rng.IntN(4001)) - 2000, Move: true}
			next = t + 30 + uint32(rng.IntN(91))
		}
		return in
	}
}
