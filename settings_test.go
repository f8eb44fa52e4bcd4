package rewind_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// settingsGame is the test game with match settings: its blob's size and
// its tick rate. skew makes WithMatchSettings build a wrong game (a blob
// that many bytes larger), as a joiner of another version might.
type settingsGame struct {
	*testgame.Game
	skew int
}

func (g *settingsGame) MatchSettings() []byte {
	return binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint32(nil, uint32(g.Bytes)), uint16(g.Rate))
}

func (g *settingsGame) WithMatchSettings(b []byte) (rewind.Game[testgame.Input], error) {
	if len(b) != 6 {
		return nil, errors.New("settings: want 6 bytes")
	}
	return &settingsGame{Game: &testgame.Game{
		Bytes: int(binary.LittleEndian.Uint32(b)) + g.skew,
		Rate:  int(binary.LittleEndian.Uint16(b[4:])),
	}}, nil
}

// TestHostSettings: a host chooses its match settings (a world of 4 KiB
// more and 30 ticks a second); a joiner that takes the host's settings
// (ClientConfig.HostSettings), made with the default game, plays the
// host's game: every verified hash equals the server's, its Game and
// Settings are the host's, its view draws the host's world. A joiner
// without HostSettings is refused as another game; one whose settings
// build another game is refused too; one whose game cannot take settings
// is a configuration error. A spectator that takes the host's settings
// plays the host's game too.
func TestHostSettings(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(3, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05})
	sconn, _ := net.Listen("server")
	defer sconn.Close()
	hashes := map[uint32]uint64{}
	host := &settingsGame{Game: &testgame.Game{Bytes: 4096, Rate: 30}}
	srv, err := server.New[testgame.Input](host, sconn, server.Config{
		OnTick: func(tick uint32, _ *world.World, h uint64) { hashes[tick] = h },
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rewind.Connect[testgame.Input](&testgame.Game{}, mustDial(t, net, "x"), rewind.Options{
		Client: rewind.ClientConfig{HostSettings: true}}); !errors.Is(err, rewind.ErrConfig) {
		t.Fatalf("HostSettings with a game without settings: %v, want ErrConfig", err)
	}
	checked := 0
	var opts rewind.Options
	opts.Client.HostSettings = true
	opts.Client.OnVerified = func(tick uint32, h uint64) {
		checked++
		if hashes[tick] != h {
			t.Errorf("tick %d: hash %016x, server %016x", tick, h, hashes[tick])
		}
	}
	joiner, err := rewind.Connect[testgame.Input](&settingsGame{Game: &testgame.Game{}}, mustDial(t, net, "joiner"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer joiner.Close()
	joiner.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(0, tick) })
	joiner.View(start, func(*world.World, float64) {}) // a view from before the welcome: the default game's layout
	plain, _ := rewind.Connect[testgame.Input](&settingsGame{Game: &testgame.Game{}}, mustDial(t, net, "plain"), rewind.Options{})
	defer plain.Close()
	skewed, _ := rewind.Connect[testgame.Input](&settingsGame{Game: &testgame.Game{}, skew: 8}, mustDial(t, net, "skewed"),
		rewind.Options{Client: rewind.ClientConfig{HostSettings: true}})
	defer skewed.Close()
	// A spectator takes the host's game too (it has no player id).
	watcher, err := rewind.Connect[testgame.Input](&settingsGame{Game: &testgame.Game{}}, mustDial(t, net, "watcher"),
		rewind.Options{Client: rewind.ClientConfig{HostSettings: true, Spectate: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	var plainErr, skewedErr error
	now := start
	for range 3000 {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		if err := srv.Update(now); err != nil {
			t.Fatal(err)
		}
		if err := joiner.Update(now); err != nil {
			t.Fatalf("joiner: %v", err)
		}
		if err := watcher.Update(now); err != nil {
			t.Fatalf("spectator: %v", err)
		}
		if plainErr == nil {
			plainErr = plain.Update(now)
		}
		if skewedErr == nil {
			skewedErr = skewed.Update(now)
		}
	}
	var re *rewind.RefusedError
	if !errors.As(plainErr, &re) || re.Reason != rewind.ReasonGame {
		t.Errorf("a joiner of the default settings without HostSettings: %v, want refused as another game", plainErr)
	}
	if !errors.Is(skewedErr, rewind.ErrRefused) {
		t.Errorf("a joiner whose settings build another game: %v, want refused", skewedErr)
	}
	st := joiner.Stats()
	if st.Verified < 60 || checked < 60 || st.Desyncs != 0 {
		t.Fatalf("joiner after 3 s at 30 Hz: %+v, %d ticks checked", st, checked)
	}
	g := joiner.Game().(*settingsGame)
	if g.Bytes != 4096 || g.Rate != 30 || !bytes.Equal(joiner.Settings(), host.MatchSettings()) {
		t.Errorf("joiner's game %+v, settings %x; the host's %x", g.Game, joiner.Settings(), host.MatchSettings())
	}
	if g, ok := watcher.Game().(*settingsGame); !ok || g.Bytes != 4096 || g.Rate != 30 || watcher.Stats().Verified < 60 {
		t.Errorf("spectator's game %+v (%v), %d verified", watcher.Game(), ok, watcher.Stats().Verified)
	}
	if !bytes.Equal(srv.Settings(), host.MatchSettings()) {
		t.Errorf("server settings %x", srv.Settings())
	}
	var viewHash uint64
	joiner.View(now, func(w *world.World, _ float64) { viewHash = w.Hash() })
	if want := rewind.LiveWorld(joiner).Hash(); viewHash != want {
		t.Errorf("view draws a world of hash %016x, the joiner's is %016x", viewHash, want)
	}
	t.Logf("%d ticks checked at 30 Hz; plain: %v; skewed: %v", checked, plainErr, skewedErr)
}

func mustDial(t *testing.T, net *transport.SimNetwork, name string) transport.Conn {
	t.Helper()
	c, err := net.Dial(name, "server")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
