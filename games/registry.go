// Package games is rewind's game registry: every game the engine's
// programs can play (rewind serve, play, watch, demo, replay, diff, the
// page's Worker, the page and the desktop window) registers itself here
// once, and those programs find games only here: by the name --game (or
// the page's ?game=) gives.
//
// A game registers a Def in its package's init:
//
//	func init() {
//		games.Register(games.Def[Input]{
//			Name:    "tanks",
//			Summary: "tanks on a field",
//			New:     func(games.Values) (rewind.Game[Input], error) { return New(), nil },
//			Bot:     bot,
//		})
//	}
//
// and a program plays it by importing its package (for the built-in
// games, one import of games/all does it). Register erases the game's
// input type: an Entry's games are rewind.Game[Input], whose Input is the
// packed form of the game's own input (the same bytes on the wire, the
// same fingerprint, the same hashes as the game played directly), so one
// instantiation of the engine's generic code (rewind.Host[Input],
// rewind.Session[Input], replay.Verify[Input], …) plays every registered
// game. Lookup also asks the resolvers registered with RegisterResolver
// (a WebAssembly module by its path, for instance) for a name no game
// registered.
//
// docs/games.md walks a game author from Game to a tab and a window.
package games

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/draw"
)

// Input is a registered game's input as the engine carries it: the
// packed form of the game's own input struct (its schema's bytes, the
// rest zero). Entry.Pack and Entry.Unpack convert.
type Input [inputs.MaxSize]byte

// Game is a registered game, its input erased.
type Game = rewind.Game[Input]

// Bot kinds a Def's Bot must play: a deterministic script of the seed
// and the player's id, and seeded random input (rewind play --input).
const (
	Scripted = "scripted"
	Random   = "random"
)

// TickRate is the name of the setting every game has: its ticks per
// second (the flag --tick-rate, the URL parameter tick-rate).
const TickRate = "tick-rate"

// Setting is one of a game's match settings besides the tick rate: an
// integer the host chooses, given as the flag --NAME (serve, play, demo,
// watch) and the URL parameter NAME (the page). A setting's name is
// shared by every game that has one of that name.
type Setting struct {
	// Name is the flag's and the parameter's name: lower case, digits
	// and '-'.
	Name string
	// Usage is the flag's one-line help.
	Usage string
	// Default, Min and Max: the value without the flag, and its range.
	Default, Min, Max int
}

// Values are the settings a game is made with, by name: every Setting
// of its Def, and TickRate.
type Values map[string]int

// Get returns the value of the setting name (0 if absent).
func (v Values) Get(name string) int { return v[name] }

// Def is what a game registers: its name, how to make it, how a bot
// plays it. I is the game's input struct.
type Def[I any] struct {
	// Name is --game's value: lower case, unique.
	Name string
	// Summary is one line for help texts.
	Summary string
	// Settings are the game's own settings besides the tick rate.
	Settings []Setting
	// New makes the game of the values (every Setting's, and TickRate's).
	// A game whose tick rate is not the one asked is played at that rate
	// (the registry wraps it), so New may ignore TickRate.
	New func(v Values) (rewind.Game[I], error)
	// Bot returns the input function of a bot of the kind (Scripted or
	// Random) and the seed: given the bot's player id and the tick, its
	// input. Nil: the zero input.
	Bot func(kind string, seed uint64) func(me rewind.PlayerID, tick uint32) I
	// Values, if set, returns the values g was made of (a game of the
	// host's match settings, for instance: logs and replay headers name
	// them). Without it, a game's values are its tick rate alone.
	Values func(g rewind.Game[I]) Values
	// Destination, if set, is the input that sends a player to x, y
	// (|x|, |y| ≤ DestinationBound): the JSON gateway's "destination"
	// message (docs/gateway.md).
	Destination      func(x, y int32) I
	DestinationBound int32

	// Draw draws what v shows of g (the worlds between the last two
	// ticks at the frame's fraction, who "me" is, the canvas in pixels)
	// into l, the draw list the page and the window draw. Nil: g's own
	// Draw if g is a Viewer, else nothing.
	Draw func(g rewind.Game[I], v rewind.View, l *draw.List)
	// Control returns the input of the engine's controls c (keys,
	// pointer), prev being the input the player sent last. Nil: g's own
	// Control if g is a Viewer, else prev.
	Control func(g rewind.Game[I], v rewind.View, c draw.Controls, prev I) I
	// Size returns the canvas g would like, in pixels. Nil: g's own Size
	// if g is a Viewer, else DefaultWidth×DefaultHeight.
	Size func(g rewind.Game[I]) (w, h int)
	// Sound returns the sound of an effect, if it has one. Nil: none.
	Sound func(e rewind.Effect) (draw.Sound, bool)
	// Help is one line saying a person's controls ("arrows move · space
	// fires"), shown under the game's canvas.
	Help string
}

// registry is the process's registered games and resolvers.
var registry struct {
	sync.Mutex
	entries   map[string]*Entry
	resolvers []Resolver
}

// Resolver makes an Entry of a name no game registered (a path to a
// WebAssembly module, for instance): ok false when the name is not its
// kind, an error when it is but cannot be played.
type Resolver func(name string) (e *Entry, ok bool, err error)

// RegisterResolver adds r to the resolvers Lookup asks, in order, for a
// name no game registered.
func RegisterResolver(r Resolver) {
	registry.Lock()
	defer registry.Unlock()
	registry.resolvers = append(registry.resolvers, r)
}

// Register registers the game d describes. It panics on a Def without a
// name or New, on a name registered already, or on an input type the
// engine cannot carry (the program is wrong, not its input): a game
// registers in its package's init.
func Register[I any](d Def[I]) *Entry {
	e, err := newEntry(d)
	if err != nil {
		panic(err)
	}
	if err := Add(e); err != nil {
		panic(err)
	}
	return e
}

// Add registers e (an Entry made by Erase, or by a resolver's kind of
// game): ErrDuplicate if its name is taken.
func Add(e *Entry) error {
	registry.Lock()
	defer registry.Unlock()
	if registry.entries == nil {
		registry.entries = map[string]*Entry{}
	}
	if _, dup := registry.entries[e.Name]; dup {
		return fmt.Errorf("%w: %q", ErrDuplicate, e.Name)
	}
	registry.entries[e.Name] = e
	return nil
}

// Lookup returns the game registered as name, else the first resolver's
// that takes the name; ErrUnknown, naming the registered games, if none.
func Lookup(name string) (*Entry, error) {
	registry.Lock()
	e := registry.entries[name]
	rs := slices.Clone(registry.resolvers)
	registry.Unlock()
	if e != nil {
		return e, nil
	}
	for _, r := range rs {
		e, ok, err := r(name)
		if err != nil {
			return nil, err
		}
		if ok {
			return e, nil
		}
	}
	return nil, fmt.Errorf("%w: %q (the registered games: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
}

// Names returns the registered games' names, sorted.
func Names() []string {
	registry.Lock()
	defer registry.Unlock()
	names := make([]string, 0, len(registry.entries))
	for n := range registry.entries {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// All returns the registered games, sorted by name.
func All() []*Entry {
	var out []*Entry
	for _, n := range Names() {
		e, _ := Lookup(n)
		out = append(out, e)
	}
	return out
}

// Settings returns every registered game's settings (each name once,
// the first game's in name order), TickRate not among them: the flags a
// program that may play any game declares.
func Settings() []Setting {
	var out []Setting
	seen := map[string]bool{}
	for _, e := range All() {
		for _, s := range e.Settings {
			if !seen[s.Name] {
				seen[s.Name] = true
				out = append(out, s)
			}
		}
	}
	return out
}
