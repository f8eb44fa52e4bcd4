//go:build !js

package module

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// flaky is a module game whose Step writes a byte the module never
// writes at tick 100 (a machine whose simulation differs once, as a NaN
// of other bits would).
type flaky struct{ *Game }

func (f flaky) Step(w *world.World, t *game.Tick[Input]) {
	f.Game.Step(w, t)
	if t.Number == 100 {
		f.mem.At(w, 0)[60000] = 0xAB
	}
}

// TestModuleRepairAndRejoin: a player of coins.wasm whose world differs
// from the server's at tick 100 repairs it by pages (a resync, no
// desync left) and verifies the server's hashes after; a player given no
// module (a Remote with a cache) that leaves without a goodbye rejoins
// with its cookie from a new address, loads the module from its cache
// and the server's world, and verifies the server's hashes again.
func TestModuleRepairAndRejoin(t *testing.T) {
	host, err := Load("coins.wasm", coinsBytes(t, 0), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	m := newTravelMatch(t, host.Game(42), 0.02)
	var nFlaky, nRemote, nBack int
	bad := m.joinAs("flaky", flaky{host.Game(42)}, false, &nFlaky)
	cache := &Cache{}
	remote := m.join("remote", NewRemote(Config{}, cache), false, &nRemote)
	errs := make([]error, 2)
	m.run(3*time.Second, []*rewind.Session[Input]{bad, remote}, errs)
	st := bad.Stats()
	if errs[0] != nil || st.Resyncs == 0 || st.Verified < 150 || nFlaky < 150 {
		t.Errorf("the flaky player: %v; %d resyncs, verified %d, %d ticks checked", errs[0], st.Resyncs, st.Verified, nFlaky)
	}
	cookie, ok := remote.Cookie()
	if errs[1] != nil || !ok || nRemote < 150 {
		t.Fatalf("the remote player: %v, %d ticks checked", errs[1], nRemote)
	}
	id, _ := remote.Player()
	// It goes without a word (its session is simply no longer updated)
	// and comes back from another address with its cookie.
	back := m.joinWith("back", NewRemote(Config{}, cache), &nBack, cookie[:])
	errs = []error{nil, nil}
	m.run(3*time.Second, []*rewind.Session[Input]{bad, back}, errs)
	st = back.Stats()
	if m.srv.Stats().Rejoins != 1 {
		t.Errorf("server rejoins: %d, want 1", m.srv.Stats().Rejoins)
	}
	if errs[1] != nil || nBack < 100 || st.ModuleRequests != 0 || st.Player != id || st.Desyncs != 0 {
		t.Errorf("the rejoined player: %v; %d ticks checked, %d module requests, player %d (was %d), %d desyncs", errs[1], nBack, st.ModuleRequests, st.Player, id, st.Desyncs)
	}
}
