// Package allgames is where the view's programs (the page's Worker and
// the desktop window) learn their games: it imports games/all, the one
// list of the games the rewind programs play (a game of one's own is one
// import line there: docs/games.md), and the WebAssembly module resolver;
// those programs import it once and find their game with games.Lookup.
// Nothing else in view/ names a game.
package allgames

import (
	_ "github.com/rewindnet/rewind/games/all"      // sand, ships, cards, walkers, paint: every game rewind plays
	_ "github.com/rewindnet/rewind/games/wasmgame" // WebAssembly modules: ?game=module, the host's, fetched from the room
)
