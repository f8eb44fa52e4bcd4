package main

import (
	"math/rand/v2"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/ships"
)

// The ships game in serve and play (--game ships): the fast-action game
// on package fixed (games/ships).

// newShips returns the ships game at the flags' tick rate.
func (g *gameFlags) newShips() rewind.Game[ships.Input] {
	if g.tickRate == rewind.DefaultTickRate {
		return ships.New()
	}
	return ships.Rated{Game: ships.New(), Rate: g.tickRate}
}

// shipsBot returns the ships bot's input function: ships' script for the
// player's id (and the seed), or seeded random steering that changes
// every 10-60 ticks, thrusting and firing.
func shipsBot(kind string, seed uint64) func(s *rewind.Session[ships.Input]) func(uint32) ships.Input {
	return func(s *rewind.Session[ships.Input]) func(uint32) ships.Input {
		if kind == "scripted" {
			return func(t uint32) ships.Input {
				id, _ := s.Player()
				return ships.Bot(rewind.PlayerID(uint64(id)+seed), t)
			}
		}
		rng := rand.New(rand.NewPCG(seed, 0x73686970))
		var in ships.Input
		next := uint32(0)
		return func(t uint32) ships.Input {
			if t >= next {
				in = ships.Input{Turn: int8(rng.IntN(3)) - 1, Thrust: rng.IntN(4) != 0, Fire: rng.IntN(2) == 0}
				next = t + 10 + uint32(rng.IntN(51))
			}
			return in
		}
	}
}
