package ships

import (
	"math/rand/v2"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
)

// The ships game in the registry (package games): --game ships.
func init() {
	games.Register(games.Def[Input]{
		Name:    "ships",
		Summary: "ships: a fast-action arena of thrusting, firing ships (package fixed)",
		New:     func(games.Values) (rewind.Game[Input], error) { return New(), nil },
		Bot:     bot,
		Sound:   Sound,
		Help:    "left/right or A/D turn · up or W thrusts · space or mouse fires",
	})
}

// bot is ships' bot: Bot's script for the player's id (and the seed), or
// seeded random steering that changes every 10-60 ticks, thrusting and
// firing.
func bot(kind string, seed uint64) func(rewind.PlayerID, uint32) Input {
	if kind == games.Scripted {
		return func(me rewind.PlayerID, t uint32) Input { return Bot(rewind.PlayerID(uint64(me)+seed), t) }
	}
	rng := rand.New(rand.NewPCG(seed, 0x73686970))
	var in Input
	next := uint32(0)
	return func(_ rewind.PlayerID, t uint32) Input {
		if t >= next {
			in = Input{Turn: int8(rng.IntN(3)) - 1, Thrust: rng.IntN(4) != 0, Fire: rng.IntN(2) == 0}
			next = t + 10 + uint32(rng.IntN(51))
		}
		return in
	}
}
