package main

import (
	"math/rand/v2"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/cards"
)

// The cards example in serve and play (--game cards): private hands and a
// server-only deck (docs/scenes.md). play's last line's verified_hash is
// then the hash of what that player sees (the client checks its view's
// hash, the one the server sends it).

// newCards returns the cards game at the flags' tick rate.
func (g *gameFlags) newCards() rewind.Game[cards.Input] {
	if g.tickRate == rewind.DefaultTickRate {
		return cards.New()
	}
	return ratedCards{cards.New(), g.tickRate}
}

// ratedCards is cards at another tick rate (SetupSecrets comes along).
type ratedCards struct {
	*cards.Game
	rate int
}

// TickRate implements game.TickRater.
func (r ratedCards) TickRate() int { return r.rate }

// cardsBot returns the cards bot's input function: cards' script for the
// player's id (and the seed), or a seeded random action every 20-80
// ticks.
func cardsBot(kind string, seed uint64) func(s *rewind.Session[cards.Input]) func(uint32) cards.Input {
	return func(s *rewind.Session[cards.Input]) func(uint32) cards.Input {
		if kind == "scripted" {
			return func(t uint32) cards.Input {
				id, _ := s.Player()
				return cards.Bot(rewind.PlayerID(uint64(id)+seed), t)
			}
		}
		rng := rand.New(rand.NewPCG(seed, 0x63617264))
		var in cards.Input
		next := uint32(0)
		return func(t uint32) cards.Input {
			if t >= next {
				in = cards.Input{Action: uint8(1 + rng.IntN(3)), Arg: uint8(rng.IntN(cards.MaxPlayers)), Seq: in.Seq + 1}
				next = t + 20 + uint32(rng.IntN(61))
			}
			return in
		}
	}
}
