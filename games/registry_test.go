package games_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games"
	_ "github.com/rewindnet/rewind/games/all"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/games/ships"
)

// stepBoth steps a game played directly and its erased form over the
// same inputs (bot's, for players 0..3) for ticks ticks, and returns the
// first tick whose world hashes differ (0: none).
func stepBoth[I any](t *testing.T, g rewind.Game[I], e games.Game, bot func(rewind.PlayerID, uint32) I, ticks uint32) uint32 {
	t.Helper()
	_, w1, err := game.NewWorld(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, w2, err := game.NewWorld(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	it, err := inputs.NewType[I]()
	if err != nil {
		t.Fatal(err)
	}
	const players = 4
	t1 := &game.Tick[I]{Inputs: make([]I, players), Present: make([]bool, players)}
	t2 := &game.Tick[games.Input]{Inputs: make([]games.Input, players), Present: make([]bool, players)}
	for n := uint32(1); n <= ticks; n++ {
		t1.Number, t2.Number = n, n
		t1.Events, t2.Events = nil, nil
		if n == 1 {
			for p := range players {
				ev := game.Event{Kind: game.Join, Player: rewind.PlayerID(p)}
				t1.Events = append(t1.Events, ev)
				t2.Events = append(t2.Events, ev)
			}
		}
		for p := range players {
			t1.Present[p], t2.Present[p] = true, true
			in := bot(rewind.PlayerID(p), n)
			if err := it.SanitizeValue(&in); err != nil {
				t.Fatal(err)
			}
			t1.Inputs[p] = in
			it.Pack(t2.Inputs[p][:], &in)
		}
		g.Step(w1, t1)
		e.Step(w2, t2)
		if w1.Hash() != w2.Hash() {
			return n
		}
	}
	return 0
}

// TestEraseSameWorlds: a registered game played through the registry
// (its input erased, packed) steps to the same world, hash for hash, as
// the game played directly, and has the same input fingerprint.
func TestEraseSameWorlds(t *testing.T) {
	e, err := games.Lookup("sand")
	if err != nil {
		t.Fatal(err)
	}
	eg, err := e.New(games.Values{"grid": 64})
	if err != nil {
		t.Fatal(err)
	}
	if bad := stepBoth(t, sand.New(64), eg, sand.Bot, 600); bad != 0 {
		t.Fatalf("sand: worlds differ at tick %d", bad)
	}
	es, _ := games.Lookup("ships")
	sg, _ := es.New(nil)
	if bad := stepBoth(t, ships.New(), sg, ships.Bot, 600); bad != 0 {
		t.Fatalf("ships: worlds differ at tick %d", bad)
	}
	direct, _ := inputs.NewType[sand.Input]()
	erased, err := inputs.TypeOf[games.Input](eg)
	if err != nil || erased.Fingerprint() != direct.Fingerprint() || erased.Size() != direct.Size() {
		t.Fatalf("erased input type %v, %v: want sand's fingerprint %x", erased, err, direct.Fingerprint())
	}
}

// TestLookup: the games of games/all are registered; an unknown name is
// ErrUnknown naming them; a resolver answers for names no game has.
func TestLookup(t *testing.T) {
	for _, n := range []string{"sand", "ships", "cards", "walkers", "paint"} {
		if _, err := games.Lookup(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	_, err := games.Lookup("nosuchgame")
	if !errors.Is(err, games.ErrUnknown) || !strings.Contains(err.Error(), "cards, paint, sand, ships, walkers") {
		t.Fatalf("nosuchgame: %v", err)
	}
	sandEntry, _ := games.Lookup("sand")
	games.RegisterResolver(func(name string) (*games.Entry, bool, error) {
		if !strings.HasSuffix(name, ".test-kind") {
			return nil, false, nil
		}
		return sandEntry, true, nil
	})
	if e, err := games.Lookup("x.test-kind"); err != nil || e != sandEntry {
		t.Fatalf("resolved: %v %v", e, err)
	}
}

// TestEntryProperties: what the registry works out of each game: sand
// takes the host's settings, cards hides information, walkers has a
// destination; settings out of range are refused.
func TestEntryProperties(t *testing.T) {
	get := func(n string) *games.Entry { e, _ := games.Lookup(n); return e }
	if !get("sand").HostSettings || get("walkers").HostSettings || !get("cards").Hidden || get("sand").Hidden || get("walkers").Destination == nil {
		t.Fatal("entries' HostSettings, Hidden or Destination wrong")
	}
	if _, err := get("sand").New(games.Values{"grid": 4}); !errors.Is(err, games.ErrSettings) {
		t.Fatalf("grid 4: %v", err)
	}
	g, err := get("walkers").New(games.Values{games.TickRate: 30})
	if err != nil || game.RateOf(g) != 30 {
		t.Fatalf("walkers at 30 Hz: rate %d, %v", game.RateOf(g), err)
	}
	sg, _ := get("sand").New(games.Values{"grid": 32, games.TickRate: 20})
	c, err := get("sand").FromSettings(sg.(game.SettingsProvider).MatchSettings())
	if err != nil {
		t.Fatal(err)
	}
	if v := get("sand").Values(c); v["grid"] != 32 || v[games.TickRate] != 20 || get("sand").SettingsText(v) != "grid=32 tick-rate=20" {
		t.Fatalf("values of sand's settings: %v", v)
	}
	bot, err := get("cards").Bot(games.Random, 3)
	if err != nil || bot == nil {
		t.Fatal(err)
	}
	if _, err := get("cards").Bot("clever", 3); !errors.Is(err, games.ErrSettings) {
		t.Fatalf("bot kind clever: %v", err)
	}
}
