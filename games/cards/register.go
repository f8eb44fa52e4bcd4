package cards

import (
	"math/rand/v2"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
)

// The cards game in the registry (package games): --game cards, private
// hands and a server-only deck (docs/scenes.md): a player's verified hash
// is the hash of what that player sees.
func init() {
	games.Register(games.Def[Input]{
		Name:    "cards",
		Summary: "cards: private hands and a server-only deck (hidden information)",
		New:     func(games.Values) (rewind.Game[Input], error) { return New(), nil },
		Bot:     bot,
		Help:    "space draws · 1–4 or a click plays a card · shift swaps hands with the next seat",
	})
}

// bot is cards' bot: Bot's script for the player's id (and the seed), or
// a seeded random action every 20-80 ticks.
func bot(kind string, seed uint64) func(rewind.PlayerID, uint32) Input {
	if kind == games.Scripted {
		return func(me rewind.PlayerID, t uint32) Input { return Bot(rewind.PlayerID(uint64(me)+seed), t) }
	}
	rng := rand.New(rand.NewPCG(seed, 0x63617264))
	var in Input
	next := uint32(0)
	return func(_ rewind.PlayerID, t uint32) Input {
		if t >= next {
			in = Input{Action: uint8(1 + rng.IntN(3)), Arg: uint8(rng.IntN(MaxPlayers)), Seq: in.Seq + 1}
			next = t + 20 + uint32(rng.IntN(61))
		}
		return in
	}
}
