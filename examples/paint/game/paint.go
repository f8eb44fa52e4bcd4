// Package paint is an example game of one's own, registered with the
// engine's game registry (package games) in its init: importing it is all
// a program needs to serve, play, record and replay it by its name,
// "paint". Each player moves a brush over a 32×32 board and paints the
// cells it passes its own colour; a player's score is the cells it holds.
// docs/games.md walks through it.
package paint

import (
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/world"
)

// Side is the board's side, in cells.
const Side = 32

// Input is what a player does in a tick: a step of the brush (each -1, 0
// or 1) and whether it paints.
type Input struct {
	DX    int8 `rewind:"min=-1,max=1"`
	DY    int8 `rewind:"min=-1,max=1"`
	Paint bool
}

// Brush is a player's brush on the board.
type Brush struct{ X, Y int32 }

// Game is the paint game: the board's cells (0 empty, else the painting
// player's id + 1) and every player's brush.
type Game struct {
	board   world.Grid[uint8]
	brushes world.Value[[rewind.MaxPlayers]Brush]
}

// New returns the game.
func New() *Game { return &Game{} }

// Register declares the board and the brushes.
func (g *Game) Register(s *world.Schema) error {
	g.board = world.AddGrid[uint8](s, "board", Side, Side)
	g.brushes = world.AddValue[[rewind.MaxPlayers]Brush](s, "brushes")
	return s.Err()
}

// Setup leaves the board empty and every brush in the corner.
func (g *Game) Setup(w *world.World) error { return nil }

// Step moves every present player's brush (wrapping at the edges) and
// paints the cell under it when asked.
func (g *Game) Step(w *world.World, t *rewind.Tick[Input]) {
	b := g.brushes.Ptr(w)
	for p, in := range t.Inputs {
		if !t.Present[p] {
			continue
		}
		b[p].X = (b[p].X + int32(in.DX) + Side) % Side
		b[p].Y = (b[p].Y + int32(in.DY) + Side) % Side
		if in.Paint {
			g.board.Set(w, int(b[p].X), int(b[p].Y), uint8(p)+1)
		}
	}
}

// Score returns the cells player p holds in w.
func (g *Game) Score(w *world.World, p rewind.PlayerID) int {
	n := 0
	for y := range Side {
		for x := range Side {
			if g.board.Get(w, x, y) == uint8(p)+1 {
				n++
			}
		}
	}
	return n
}

// The game registers itself: --game paint in every program that imports
// this package.
func init() {
	games.Register(games.Def[Input]{
		Name:    "paint",
		Summary: "paint: brushes paint a shared board (examples/paint, a game of one's own)",
		New:     func(games.Values) (rewind.Game[Input], error) { return New(), nil },
		Bot:     Bot,
		Help:    "arrows/WASD move the brush · space or mouse paints",
	})
}

// Bot is the bot's input function of a kind (games.Scripted: a walk
// of the seed and the player's id; games.Random: the same walk from a
// seeded generator) and a seed.
func Bot(kind string, seed uint64) func(me rewind.PlayerID, tick uint32) Input {
	state := seed*0x9E3779B97F4A7C15 + 1
	return func(me rewind.PlayerID, t uint32) Input {
		x := uint64(t/20) + seed + uint64(me)*7
		if kind == games.Random {
			state ^= state << 13
			state ^= state >> 7
			state ^= state << 17
			x = state
		}
		return Input{DX: int8(x%3) - 1, DY: int8(x/3%3) - 1, Paint: x%5 != 0}
	}
}
