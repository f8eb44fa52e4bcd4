// Package all is the one list of the games the rewind programs play: the
// built-in games (sand, ships, cards, walkers) and the example game of
// one's own (examples/paint). cmd/rewind, cmd/rewind-bench, the page's
// Worker and the desktop window import it once,
//
//	import _ "github.com/rewindnet/rewind/games/all"
//
// and find every game with games.Lookup. A game of one's own registers
// the same way (its package's init calls games.Register) and is played
// by every one of those programs after one more import line here
// (docs/games.md).
package all

import (
	_ "github.com/rewindnet/rewind/examples/paint/game" // a game of one's own (examples/paint): --game paint
	_ "github.com/rewindnet/rewind/games/cards"
	_ "github.com/rewindnet/rewind/games/sand"
	_ "github.com/rewindnet/rewind/games/ships"
	_ "github.com/rewindnet/rewind/games/walkers"
)
