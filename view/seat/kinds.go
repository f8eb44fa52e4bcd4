package seat

import (
	"fmt"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/games/ships"
)

// Viewer is a game that draws itself and maps the engine's controls to
// its input (the built-in games' view.go): KindOf reads a Kind's Draw,
// Control and Size from it.
type Viewer[I any] interface {
	Draw(v rewind.View, l *draw.List)
	Control(v rewind.View, c draw.Controls, prev I) I
	Size() (w, h int)
}

// KindOf returns the Kind of a game made by newGame whose values are
// Viewers (a game that is not one draws nothing and reads no controls).
func KindOf[I comparable](name string, newGame func(Config) (rewind.Game[I], error), sound func(rewind.Effect) (draw.Sound, bool), bot func(rewind.PlayerID, uint32) I) Kind[I] {
	return Kind[I]{
		Name:  name,
		New:   newGame,
		Sound: sound,
		Bot:   bot,
		Draw: func(g rewind.Game[I], v rewind.View, l *draw.List) {
			if gv, ok := g.(Viewer[I]); ok {
				gv.Draw(v, l)
			}
		},
		Control: func(g rewind.Game[I], v rewind.View, c draw.Controls, prev I) I {
			if gv, ok := g.(Viewer[I]); ok {
				return gv.Control(v, c, prev)
			}
			return prev
		},
		Size: func(g rewind.Game[I]) (int, int) {
			if gv, ok := g.(Viewer[I]); ok {
				return gv.Size()
			}
			return 512, 512
		},
	}
}

// Sand is sand as the view plays it: a Config.Side grid at Config.Rate.
func Sand() Kind[sand.Input] {
	return KindOf("sand", func(c Config) (rewind.Game[sand.Input], error) {
		if c.Side != 0 && (c.Side < 8 || c.Side > sand.MaxSide) {
			return nil, fmt.Errorf("sand: grid %d: want 8..%d", c.Side, sand.MaxSide)
		}
		return &sand.Game{Side: c.Side, Rate: c.Rate}, nil
	}, sand.Sound, sand.Bot)
}

// Ships is ships as the view plays it, at Config.Rate.
func Ships() Kind[ships.Input] {
	return KindOf("ships", func(c Config) (rewind.Game[ships.Input], error) {
		g := ships.New()
		if c.Rate > 0 && c.Rate != rewind.DefaultTickRate {
			return ships.Rated{Game: g, Rate: c.Rate}, nil
		}
		return g, nil
	}, ships.Sound, ships.Bot)
}
