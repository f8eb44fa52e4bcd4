package main

import (
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
	_ "github.com/rewindnet/rewind/games/all" // every game rewind plays (one import line per game there)
)

// defaultGame is --game's default.
const defaultGame = "sand"

// gameFlags are the flags that say which game a match plays: --game (a
// name the registry, package games, knows), --tick-rate and every
// registered game's settings (--grid: sand's). The server and its players
// must agree on every one (the game fingerprint covers them, and a player
// that differs is refused as incompatible). They are the host's match
// settings: a player of a game that takes them (games.Entry.HostSettings)
// given none of them takes the host's from its welcome.
type gameFlags struct {
	name     string
	tickRate int
	settings map[string]*int
	entry    *games.Entry // set by check
	values   games.Values // the entry's, set by check
}

func (g *gameFlags) add(fs interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
	DurationVar(*time.Duration, string, time.Duration, string)
}) {
	addModuleFlags(fs)
	fs.StringVar(&g.name, "game", defaultGame, "the game: "+strings.Join(games.Names(), ", ")+" (the registered games, package games)")
	g.settings = map[string]*int{}
	for _, s := range games.Settings() {
		v := new(int)
		fs.IntVar(v, s.Name, s.Default, s.Usage)
		g.settings[s.Name] = v
	}
	fs.IntVar(&g.tickRate, "tick-rate", rewind.DefaultTickRate, "ticks per second (a player of a game that takes the host's settings, given none of them, plays the host's)")
}

func (g *gameFlags) check() error {
	e, err := games.Lookup(g.name)
	if err != nil {
		return usageError{Err: fmt.Errorf("--game %s: %w", g.name, err)}
	}
	v := games.Values{games.TickRate: g.tickRate}
	for _, s := range e.Settings {
		v[s.Name] = *g.settings[s.Name]
	}
	if g.values, err = e.Complete(v); err != nil {
		return usageError{Err: err}
	}
	g.entry = e
	return nil
}

// given says whether fs set one of the game's settings (or --tick-rate):
// then the player plays those, not the host's.
func (g *gameFlags) given(fs *flag.FlagSet) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == games.TickRate {
			set = true
		}
		for _, s := range g.entry.Settings {
			set = set || f.Name == s.Name
		}
	})
	return set
}

// newGame returns the game the flags describe (checked by check).
func (g *gameFlags) newGame() games.Game {
	gm, err := g.entry.New(g.values)
	if err != nil {
		panic(err) // check made these values
	}
	return gm
}

// settingPairs are the game's settings as key/value pairs, for logs.
func (g *gameFlags) settingPairs() []any {
	var pairs []any
	for _, s := range g.entry.Settings {
		pairs = append(pairs, s.Name, g.values[s.Name])
	}
	return pairs
}

// settingsText is the settings as replay headers carry them
// (games.Entry.SettingsText).
func (g *gameFlags) settingsText() string { return g.entry.SettingsText(g.values) }

// logger returns log with the game's attributes (its name and settings).
func (g *gameFlags) logger(log *slog.Logger) *slog.Logger {
	return log.With(append([]any{"game", g.name}, g.settingPairs()...)...)
}
