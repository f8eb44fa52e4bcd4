// Package allgames is where the view's programs (the page's Worker and
// the desktop window) learn their games: it imports every game package
// that registers itself with the registry (package games), and those
// programs import it once and find their game with games.Lookup. A game
// of one's own plays in a tab and a window by one more import line here
// (docs/games.md): nothing else in view/ names a game.
package allgames

import (
	_ "github.com/rewindnet/rewind/examples/paint/game" // a game of one's own (examples/paint)
	_ "github.com/rewindnet/rewind/games/all"           // sand, ships, cards, walkers
	_ "github.com/rewindnet/rewind/games/wasmgame"      // WebAssembly modules: ?game=module, the host's, fetched from the room
)
