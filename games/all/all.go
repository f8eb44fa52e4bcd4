// Package all registers every built-in game (sand, ships, cards,
// walkers) with the registry, package games: a program that plays them
// imports it once,
//
//	import _ "github.com/rewindnet/rewind/games/all"
//
// and finds them with games.Lookup. A game of one's own registers the
// same way: its package's init calls games.Register, and the program
// imports that package (docs/games.md).
package all

import (
	_ "github.com/rewindnet/rewind/games/cards"
	_ "github.com/rewindnet/rewind/games/sand"
	_ "github.com/rewindnet/rewind/games/ships"
	_ "github.com/rewindnet/rewind/games/walkers"
)
