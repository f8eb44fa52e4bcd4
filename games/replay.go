package games

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
)

// FromReplay returns the registered game a replay was recorded with and
// its entry: the game of the module the replay carries (a WebAssembly
// game's: HostModule's entry takes it), else the game the header's match
// settings make (a game that takes the host's settings, recorded by a
// player that took them), else the one of its settings text
// (SettingsText's form; missing values take their defaults).
func FromReplay(h codec.ReplayHeader) (*Entry, Game, error) {
	if len(h.Module) > 0 {
		return fromModule(h)
	}
	e, err := Lookup(h.Game)
	if err != nil {
		return nil, nil, fmt.Errorf("replay of game %q: %w", h.Game, err)
	}
	if len(h.MatchSettings) > 0 && e.HostSettings {
		g, err := e.FromSettings(h.MatchSettings)
		if err != nil {
			return nil, nil, fmt.Errorf("replay's match settings: %w", err)
		}
		return e, g, nil
	}
	v, err := ParseSettings(h.Settings)
	if err != nil {
		return nil, nil, err
	}
	g, err := e.New(v)
	if err != nil {
		return nil, nil, fmt.Errorf("replay settings %q: %w", h.Settings, err)
	}
	return e, g, nil
}

// HostModule names the game of whichever WebAssembly module the host
// plays (package games/wasmgame resolves it): its entry takes a module's
// bytes (TakeModule) and builds the game from the match settings.
const HostModule = "module"

// fromModule returns the game of the module a replay carries.
func fromModule(h codec.ReplayHeader) (*Entry, Game, error) {
	e, err := Lookup(HostModule)
	if err != nil {
		return nil, nil, fmt.Errorf("replay of a WebAssembly module: %w", err)
	}
	if e.TakeModule == nil {
		return nil, nil, fmt.Errorf("%w: %s takes no module", ErrSettings, HostModule)
	}
	if err := e.TakeModule(h.Module); err != nil {
		return nil, nil, fmt.Errorf("the replay's module: %w", err)
	}
	g, err := e.FromSettings(h.MatchSettings)
	if err != nil {
		return nil, nil, fmt.Errorf("replay's match settings: %w", err)
	}
	return e, g, nil
}

// FromSettings returns the entry's game of a host's match settings (the
// game's SettingsProvider encoding, as a welcome carries them); an error
// for a game that does not take them (HostSettings false) or settings it
// refuses.
func (e *Entry) FromSettings(b []byte) (Game, error) {
	g, err := e.New(nil)
	if err != nil {
		return nil, err
	}
	c, ok := g.(game.Configurable[Input])
	if !ok {
		return nil, fmt.Errorf("%w: %s takes no match settings", ErrSettings, e.Name)
	}
	return c.WithMatchSettings(b)
}

// SettingsText is the text form of a game's values, as replay headers
// carry it: NAME=VALUE for each of the entry's settings, then
// tick-rate=RATE.
func (e *Entry) SettingsText(v Values) string {
	var b strings.Builder
	for _, s := range e.Settings {
		fmt.Fprintf(&b, "%s=%d ", s.Name, v[s.Name])
	}
	fmt.Fprintf(&b, "%s=%d", TickRate, v[TickRate])
	return b.String()
}

// ParseSettings reads SettingsText's form (NAME=VALUE words; a value
// that is not an integer is an error).
func ParseSettings(text string) (Values, error) {
	v := Values{}
	for _, kv := range strings.Fields(text) {
		k, x, _ := strings.Cut(kv, "=")
		n, err := strconv.Atoi(x)
		if err != nil {
			return nil, fmt.Errorf("%w: settings %q: %v", ErrSettings, kv, err)
		}
		v[k] = n
	}
	return v, nil
}
