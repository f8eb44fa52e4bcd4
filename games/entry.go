package games

import (
	"fmt"
	"sync"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Entry is a registered game with its input type erased: what the
// engine's programs use. Register makes one of a Def; a Resolver may make
// its own (every func field set but Describe and Destination, which may
// be nil).
type Entry struct {
	// Name, Summary and Settings are the Def's.
	Name, Summary string
	Settings      []Setting
	// New makes the game of v: a value missing from v takes its
	// Setting's default (TickRate's: rewind.DefaultTickRate); one out of
	// range is ErrSettings.
	New func(v Values) (Game, error)
	// Bot returns a bot's input function (kind Scripted or Random, see
	// Def.Bot); ErrSettings for another kind.
	Bot func(kind string, seed uint64) (func(me rewind.PlayerID, tick uint32) Input, error)
	// Values returns the values g (a game of this entry) was made of.
	Values func(g Game) Values
	// Destination is the Def's, erased (nil if it had none).
	Destination      func(x, y int32) Input
	DestinationBound int32
	// HostSettings says the game takes the host's match settings
	// (game.Configurable): a player given none of its settings plays the
	// host's (rewind.ClientConfig.HostSettings).
	HostSettings bool
	// TakeModule, for the entry of the host's module (HostModule),
	// gives it a module's bytes (a replay carries them), whose game
	// FromSettings then builds; nil for every other entry.
	TakeModule func(b []byte) error
	// Hidden says the game hides information from its players (private
	// input fields, or a server-only scene set up by SetupSecrets): a
	// player's verified hash is of what it sees, and the JSON gateway,
	// which sends whole worlds, does not serve it (docs/scenes.md).
	Hidden bool

	// Draw, Control, Size and Sound are the Def's (or its game's Viewer
	// methods), erased: what the page's Worker and the window play a
	// person's seat with. An Entry a resolver makes may leave them nil:
	// its game then draws nothing and reads no controls.
	Draw    func(g Game, v rewind.View, l *draw.List)
	Control func(g Game, v rewind.View, c draw.Controls, prev Input) Input
	Size    func(g Game) (w, h int)
	Sound   func(e rewind.Effect) (draw.Sound, bool)
	// Help is the Def's line on a person's controls.
	Help string
}

// Defaults returns the values of the entry's settings without flags.
func (e *Entry) Defaults() Values {
	v := Values{TickRate: rewind.DefaultTickRate}
	for _, s := range e.Settings {
		v[s.Name] = s.Default
	}
	return v
}

// Complete returns v with every missing value set to its default, or
// ErrSettings naming a value out of its range.
func (e *Entry) Complete(v Values) (Values, error) {
	out := e.Defaults()
	for k, x := range v {
		if _, ok := out[k]; ok {
			out[k] = x
		}
	}
	if r := out[TickRate]; r < 1 || r > 1000 {
		return nil, fmt.Errorf("%w: %s %d: want 1..1000", ErrSettings, TickRate, r)
	}
	for _, s := range e.Settings {
		if x := out[s.Name]; x < s.Min || x > s.Max {
			return nil, fmt.Errorf("%w: %s %s %d: want %d..%d", ErrSettings, e.Name, s.Name, x, s.Min, s.Max)
		}
	}
	return out, nil
}

// newEntry erases d.
func newEntry[I any](d Def[I]) (*Entry, error) {
	if d.Name == "" || d.New == nil {
		return nil, fmt.Errorf("%w: a game needs a Name and New", ErrDef)
	}
	it, err := inputs.NewType[I]()
	if err != nil {
		return nil, fmt.Errorf("%w: game %q: %v", ErrDef, d.Name, err)
	}
	e := &Entry{Name: d.Name, Summary: d.Summary, Settings: d.Settings, DestinationBound: d.DestinationBound}
	e.New = func(v Values) (Game, error) {
		v, err := e.Complete(v)
		if err != nil {
			return nil, err
		}
		g, err := d.New(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrSettings, d.Name, err)
		}
		return erase(g, it, v[TickRate], d.Name), nil
	}
	e.Bot = erasedBot(d, it)
	view(e, d, it)
	e.Values = func(g Game) Values {
		v := Values{TickRate: game.RateOf(g)}
		if in, ok := Unerase(g).(rewind.Game[I]); ok && d.Values != nil {
			for k, x := range d.Values(in) {
				v[k] = x
			}
		}
		return v
	}
	if d.Destination != nil {
		e.Destination = func(x, y int32) Input {
			var in Input
			i := d.Destination(x, y)
			it.Pack(in[:], &i)
			return in
		}
	}
	g, err := d.New(e.Defaults())
	if err != nil {
		return nil, fmt.Errorf("%w: game %q of its default settings: %v", ErrDef, d.Name, err)
	}
	_, e.HostSettings = g.(game.Configurable[I])
	_, secret := game.As[game.SecretSetup](g)
	e.Hidden = secret || it.HasPrivate()
	return e, nil
}

// erasedBot is d's Bot, its input packed.
func erasedBot[I any](d Def[I], it *inputs.Type[I]) func(string, uint64) (func(rewind.PlayerID, uint32) Input, error) {
	return func(kind string, seed uint64) (func(rewind.PlayerID, uint32) Input, error) {
		if kind != Scripted && kind != Random {
			return nil, fmt.Errorf("%w: bot %q: want %s or %s", ErrSettings, kind, Scripted, Random)
		}
		if d.Bot == nil {
			return func(rewind.PlayerID, uint32) Input { return Input{} }, nil
		}
		bot := d.Bot(kind, seed)
		return func(me rewind.PlayerID, t uint32) Input {
			var in Input
			i := bot(me, t)
			it.Pack(in[:], &i)
			return in
		}, nil
	}
}

// Erase returns g as a Game: the same game, whose Input is the packed
// form of g's, played at the tick rate rate (0, or g's own: g's). The
// engine looks through it (game.Wrapper) for g's optional interfaces; it
// is game.Configurable when g is.
func Erase[I any](g rewind.Game[I], rate int) Game {
	it, err := inputs.NewType[I]()
	if err != nil {
		panic(fmt.Sprintf("games: Erase: %v", err)) // a game whose input the engine cannot carry: no engine plays it
	}
	return erase(g, it, rate, "")
}

// EraseNamed is Erase of a game that says its name (game.Namer): what a
// server's refusal of another game names, for a resolver's entries
// (games/wasmgame's games say "module", the game of the host's module).
func EraseNamed[I any](g rewind.Game[I], rate int, name string) Game {
	it, err := inputs.NewType[I]()
	if err != nil {
		panic(fmt.Sprintf("games: EraseNamed: %v", err)) // as Erase
	}
	return erase(g, it, rate, name)
}

func erase[I any](g rewind.Game[I], it *inputs.Type[I], rate int, name string) Game {
	if rate == game.RateOf(g) {
		rate = 0
	}
	p := &played[I]{g: g, it: it, rate: rate, name: name}
	if c, ok := g.(game.Configurable[I]); ok && rate == 0 {
		return configurable[I]{p, c}
	}
	return p
}

// Unerase returns the game g erases (Erase's argument): a
// rewind.Game[I] of the game's own input type I, or nil if g is not an
// erased game.
func Unerase(g Game) any {
	if w, ok := g.(interface{ unerase() any }); ok {
		return w.unerase()
	}
	return nil
}

// played is an erased game.
type played[I any] struct {
	g     rewind.Game[I]
	it    *inputs.Type[I]
	rate  int
	name  string    // the registered name ("": Erase's)
	ticks sync.Pool // *game.Tick[I], for Step
}

// GameName implements game.Namer: the name the game registered ("" for
// a game Erase made, which says none).
func (p *played[I]) GameName() string { return p.name }

func (p *played[I]) Register(s *world.Schema) error { return p.g.Register(s) }
func (p *played[I]) Setup(w *world.World) error     { return p.g.Setup(w) }

// Step steps the game with t's inputs unpacked.
func (p *played[I]) Step(w *world.World, t *game.Tick[Input]) {
	tt, _ := p.ticks.Get().(*game.Tick[I])
	if tt == nil {
		tt = new(game.Tick[I])
	}
	tt.Number, tt.Events, tt.Present = t.Number, t.Events, t.Present
	if cap(tt.Inputs) < len(t.Inputs) {
		tt.Inputs = make([]I, len(t.Inputs))
	}
	tt.Inputs = tt.Inputs[:len(t.Inputs)]
	for i := range t.Inputs {
		p.it.Unpack(t.Inputs[i][:], &tt.Inputs[i])
	}
	game.ForwardEffects(tt, t)
	p.g.Step(w, tt)
	tt.Events, tt.Present = nil, nil
	p.ticks.Put(tt)
}

// TickRate implements game.TickRater.
func (p *played[I]) TickRate() int {
	if p.rate != 0 {
		return p.rate
	}
	return game.RateOf(p.g)
}

// InputSchema implements inputs.Declarer.
func (p *played[I]) InputSchema() *inputs.Schema { return p.it.Schema }

// Unwrap implements game.Wrapper.
func (p *played[I]) Unwrap() any { return p.g }

func (p *played[I]) unerase() any { return p.g }

// configurable is an erased game.Configurable.
type configurable[I any] struct {
	*played[I]
	c game.Configurable[I]
}

// MatchSettings implements game.SettingsProvider.
func (c configurable[I]) MatchSettings() []byte { return c.c.MatchSettings() }

// WithMatchSettings implements game.Configurable.
func (c configurable[I]) WithMatchSettings(b []byte) (Game, error) {
	g, err := c.c.WithMatchSettings(b)
	if err != nil {
		return nil, err
	}
	return erase(g, c.it, 0, c.name), nil
}
