//go:build !js

package wasmgame_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games"
	_ "github.com/rewindnet/rewind/games/wasmgame"
	"github.com/rewindnet/rewind/module"
	"github.com/rewindnet/rewind/world"
)

// play runs a single-player match of the entry's game for d of made-up
// time with its random bot, checking every verified hash against the
// server's; it returns the session's stats and the first Update error.
func play(t *testing.T, e *games.Entry, g games.Game, d time.Duration) (rewind.Stats, error) {
	t.Helper()
	hashes := map[uint32]uint64{}
	var opts rewind.Options
	opts.Server.OnTick = func(tick uint32, w *world.World, h uint64) { hashes[tick] = h }
	opts.Client.OnVerified = func(tick uint32, h uint64) {
		if hashes[tick] != h {
			t.Errorf("tick %d: client hash %016x, server %016x", tick, h, hashes[tick])
		}
	}
	s, err := rewind.Play[games.Input](g, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bot, err := e.Bot(games.Random, 3)
	if err != nil {
		t.Fatal(err)
	}
	s.SetInputFunc(func(tick uint32) games.Input { return bot(0, tick) })
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for end := now.Add(d); now.Before(end); {
		now = now.Add(time.Millisecond)
		if err := s.Update(now); err != nil {
			return s.Stats(), err
		}
	}
	return s.Stats(), nil
}

// TestModuleByPath: --game PATH.wasm finds the module through the
// registry; its erased game plays with the server's hashes, takes the
// host's settings only for the same module, and a failing step (seen
// through the registry's wrapper) ends the match naming the module.
func TestModuleByPath(t *testing.T) {
	if _, err := games.Lookup("../../module/testdata/wasi.wasm"); !errors.Is(err, module.ErrImport) || !strings.Contains(err.Error(), "wasi_snapshot_preview1.fd_write") {
		t.Fatalf("wasi: %v", err)
	}
	e, err := games.Lookup("../../module/testdata/counter.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if !e.HostSettings {
		t.Fatal("a module's entry must take the host's settings")
	}
	g, err := e.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := play(t, e, g, 3*time.Second)
	if err != nil || st.Verified < 170 || st.Desyncs != 0 {
		t.Fatalf("counter: %+v, %v", st, err)
	}
	c, ok := g.(game.Configurable[games.Input])
	if !ok {
		t.Fatal("the erased module game is not Configurable")
	}
	set := c.MatchSettings()
	if _, err := c.WithMatchSettings(set); err != nil {
		t.Fatal(err)
	}
	set[0] ^= 1
	if _, err := c.WithMatchSettings(set); !errors.Is(err, module.ErrHash) {
		t.Fatalf("another module's settings: %v", err)
	}
	le, err := games.Lookup("../../module/testdata/loop.wasm")
	if err != nil {
		t.Fatal(err)
	}
	lg, _ := le.New(nil)
	if _, err := play(t, le, lg, 3*time.Second); err == nil || !strings.Contains(err.Error(), "loop.wasm: tick 3") {
		t.Fatalf("loop: %v", err)
	}
}
