// Package wasmgame makes WebAssembly modules registered games: importing
// it registers a resolver with package games that takes a name ending in
// ".wasm" as the path of a module (contract v1, package module), so that
// `rewind serve --game ./tanks.wasm` (and play, watch, demo, replay) play
// it like any Go game. The module's game takes the host's match settings
// (its SHA-256 and seed: module.Game.MatchSettings): a player given the
// same file checks the host plays it and takes the host's seed; a player
// with another module is refused with module.ErrHash.
//
// The name Host ("module") is the game of whichever module the host
// plays, for a player given no file: a module.Remote, which fetches the
// host's module from the match (or finds it in Cache) and plays it.
//
// Both entries draw through the module's rewind_draw and read controls
// through its rewind_control (module.Game's Draw and Control), so the
// page's Worker and the desktop window play a module as any game; in
// js/wasm (a tab) the module runs in the browser's engine.
//
// Config holds the limits every module loaded by the resolver gets
// (cmd/rewind's --module-max-bytes, --module-max-memory,
// --module-step-budget set it before the flags' game is looked up).
package wasmgame

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/module"
)

// Config is the limits of the modules the resolver loads (the zero value:
// package module's defaults). Set it before the first Lookup.
var Config module.Config

// Cache keeps the modules players fetch, by SHA-256 (cmd/rewind's
// --module-cache sets its directory; the zero Cache: memory only).
var Cache module.Cache

// Host is the name of the game of the host's module (a module.Remote).
const Host = games.HostModule

// Seed is the seed a module's game starts from (rewind_init), unless the
// player takes the host's.
var Seed uint64 = 1

var loaded struct {
	sync.Mutex
	entries map[string]*games.Entry // by path
}

func init() { games.RegisterResolver(resolve) }

// resolve loads the module at name when name ends in ".wasm"; Host is
// the game of the host's module.
func resolve(name string) (*games.Entry, bool, error) {
	if !strings.HasSuffix(name, ".wasm") && name != Host {
		return nil, false, nil
	}
	loaded.Lock()
	defer loaded.Unlock()
	if e, ok := loaded.entries[name]; ok {
		return e, true, nil
	}
	if name == Host {
		e := RemoteEntry(module.NewRemote(Config, &Cache))
		if loaded.entries == nil {
			loaded.entries = map[string]*games.Entry{}
		}
		loaded.entries[name] = e
		return e, true, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, true, fmt.Errorf("module: %w", err)
	}
	m, err := module.Load(filepath.Base(name), b, Config)
	if err != nil {
		return nil, true, err
	}
	e := Entry(name, m)
	if loaded.entries == nil {
		loaded.entries = map[string]*games.Entry{}
	}
	loaded.entries[name] = e
	return e, true, nil
}

// Entry returns m as a registry entry named name: its games start from
// Seed (or the host's), its bots send random bytes.
func Entry(name string, m *module.Module) *games.Entry {
	e := &games.Entry{
		Name:         name,
		Summary:      fmt.Sprintf("WebAssembly module %s (%d players, %d input bytes, sha256 %s)", m.Name(), m.Players(), m.InputSize(), m.HashString()),
		HostSettings: true,
	}
	e.New = func(v games.Values) (games.Game, error) {
		v, err := e.Complete(v)
		if err != nil {
			return nil, err
		}
		return games.EraseNamed[module.Input](m.Game(Seed), v[games.TickRate], Host), nil
	}
	it, err := inputs.NewType[module.Input]()
	if err != nil {
		panic(err) // module.Input is plain: a broken build
	}
	e.Bot = func(kind string, seed uint64) (func(rewind.PlayerID, uint32) games.Input, error) {
		if kind != games.Scripted && kind != games.Random {
			return nil, fmt.Errorf("%w: bot %q: want %s or %s", games.ErrSettings, kind, games.Scripted, games.Random)
		}
		return bot(m.InputSize(), seed, it), nil
	}
	e.Values = func(g games.Game) games.Values { return games.Values{games.TickRate: game.RateOf(g)} }
	setView(e, it)
	return e
}

// moduleHelp is a module's line on a person's controls.
const moduleHelp = "arrows or WASD, space (fire), shift (alt), 1-4, the pointer: what they do is the module's"

// setView sets e's Draw, Control, Size and Help: the module game's own
// (module.Game), the game unerased and its input unpacked and packed.
func setView(e *games.Entry, it *inputs.Type[module.Input]) {
	own := func(g games.Game) *module.Game {
		mg, _ := games.Unerase(g).(*module.Game)
		return mg
	}
	e.Help = moduleHelp
	e.Draw = func(g games.Game, v rewind.View, l *draw.List) {
		if mg := own(g); mg != nil {
			mg.Draw(v, l)
		}
	}
	e.Control = func(g games.Game, v rewind.View, c draw.Controls, prev games.Input) games.Input {
		mg := own(g)
		if mg == nil {
			return prev
		}
		var p module.Input
		it.Unpack(prev[:], &p)
		p = mg.Control(v, c, p)
		var out games.Input
		it.Pack(out[:], &p)
		return out
	}
	e.Size = func(games.Game) (int, int) { return module.ViewWidth, module.ViewHeight }
}

// RemoteEntry returns r as a registry entry named Host: a player that
// takes the host's settings (HostSettings) plays the host's module,
// fetched from the match; its bots send random bytes, as many as the
// module's input (once it is known).
func RemoteEntry(r *module.Remote) *games.Entry {
	e := &games.Entry{
		Name:         Host,
		Summary:      "the host's WebAssembly module, fetched from the match (cached by SHA-256)",
		HostSettings: true,
		TakeModule:   r.TakeModule,
	}
	e.New = func(v games.Values) (games.Game, error) {
		v, err := e.Complete(v)
		if err != nil {
			return nil, err
		}
		return games.EraseNamed[module.Input](r, v[games.TickRate], Host), nil
	}
	it, err := inputs.NewType[module.Input]()
	if err != nil {
		panic(err) // module.Input is plain: a broken build
	}
	e.Bot = func(kind string, seed uint64) (func(rewind.PlayerID, uint32) games.Input, error) {
		if kind != games.Scripted && kind != games.Random {
			return nil, fmt.Errorf("%w: bot %q: want %s or %s", games.ErrSettings, kind, games.Scripted, games.Random)
		}
		var play func(rewind.PlayerID, uint32) games.Input
		return func(me rewind.PlayerID, t uint32) games.Input {
			if play == nil {
				m := r.Current()
				if m == nil {
					return games.Input{}
				}
				play = bot(m.InputSize(), seed, it)
			}
			return play(me, t)
		}, nil
	}
	e.Values = func(g games.Game) games.Values { return games.Values{games.TickRate: game.RateOf(g)} }
	setView(e, it)
	return e
}

// bot returns seeded random input: size random bytes, new every 10-60
// ticks.
func bot(size int, seed uint64, it *inputs.Type[module.Input]) func(rewind.PlayerID, uint32) games.Input {
	var rng *rand.Rand
	var cur games.Input
	next := uint32(0)
	return func(me rewind.PlayerID, t uint32) games.Input {
		if rng == nil {
			rng = rand.New(rand.NewPCG(seed, uint64(me)+0x7761736d))
		}
		if t >= next {
			b := make([]byte, size)
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			in := module.InputOf(b)
			cur = games.Input{}
			it.Pack(cur[:], &in)
			next = t + 10 + uint32(rng.IntN(51))
		}
		return cur
	}
}
