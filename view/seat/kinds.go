package seat

import (
	"errors"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
)

// FromEntry returns the Kind of a registered game (package games): made
// of a seat's Config (its Settings and Rate; a missing value takes the
// setting's default), drawn, steered and heard as its entry says, its
// bot the entry's scripted one. Every game the page's Worker and the
// window play is one of these: games.Lookup finds the entry by name.
func FromEntry(e *games.Entry) Kind[games.Input] {
	k := Kind[games.Input]{
		Name: e.Name,
		New: func(c Config) (games.Game, error) {
			v := games.Values{}
			for name, x := range c.Settings {
				v[name] = x
			}
			if c.Rate > 0 {
				v[games.TickRate] = c.Rate
			}
			return e.New(v)
		},
		Draw:    e.Draw,
		Control: e.Control,
		Size:    e.Size,
		Sound:   e.Sound,
		Hidden:  e.Hidden,
	}
	if bot, err := e.Bot(games.Scripted, 0); err == nil {
		k.Bot = bot
	}
	return k
}

// Lookup returns the Kind of the game registered as name (games.Lookup:
// an unknown name's error names the registered games).
func Lookup(name string) (Kind[games.Input], error) {
	e, err := games.Lookup(name)
	if err != nil {
		return Kind[games.Input]{}, err
	}
	return FromEntry(e), nil
}

// OtherGame returns the game a match plays when err says its server
// refused the seat for playing another game and named its own (a
// registered game's server does: rewind.RefusedError.Game), else "".
func OtherGame(err error) string {
	var r *rewind.RefusedError
	if errors.As(err, &r) && r.Reason == rewind.ReasonGame {
		return r.Game
	}
	return ""
}
