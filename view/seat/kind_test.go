package seat

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/draw"
	_ "github.com/rewindnet/rewind/examples/paint/game" // a game of one's own
	"github.com/rewindnet/rewind/games"
	_ "github.com/rewindnet/rewind/games/all"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/games/ships"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// packed returns in as a registered game's Input.
func packed[I any](t *testing.T, in I) games.Input {
	t.Helper()
	it, err := inputs.NewType[I]()
	if err != nil {
		t.Fatal(err)
	}
	var out games.Input
	it.Pack(out[:], &in)
	return out
}

// kind returns the Kind of the registered game name.
func kind(t *testing.T, name string) Kind[games.Input] {
	t.Helper()
	k, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestPlayedKind plays single-player ships and sand seats through their
// registry entries' Kinds (FromEntry) in made-up time to Until, steered by the engine's controls: each
// stops with that tick's verified hash, its input is the controls' and
// its draw list draws the world.
func TestPlayedKind(t *testing.T) {
	now := time.Unix(1000, 0)
	play := func(p interface {
		Tick(time.Time)
		Done() bool
		Err() error
	}) {
		t.Helper()
		for i := 0; i < 60*10 && !p.Done(); i++ {
			p.Tick(now)
			now = now.Add(time.Second / 240)
		}
		if !p.Done() || p.Err() != nil {
			t.Fatalf("done %v, err %v", p.Done(), p.Err())
		}
	}
	solo := func(g games.Game, opts rewind.Options) (*rewind.Session[games.Input], error) {
		return rewind.Play(g, opts)
	}
	sh, err := OpenKind(kind(t, "ships"), Config{Room: "SH1PS2", Until: 120}, solo)
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	sh.Tick(now)
	sh.Control(now, draw.Controls{Keys: draw.Left | draw.Up | draw.Fire})
	if sh.input != packed(t, ships.Input{Turn: 1, Thrust: true, Fire: true}) {
		t.Fatalf("ships input %+v", sh.input)
	}
	play(sh)
	var l draw.List
	w, h := sh.Size()
	sh.Draw(now, w, h, &l)
	circles := 0
	for i := range l.Len() {
		if l.Command(i).Op == draw.OpCircle {
			circles++
		}
	}
	if w != 600 || circles < 3 { // the viewer's rim, its ship, a shot
		t.Fatalf("%d×%d, %d circles", w, h, circles)
	}
	sa, err := OpenKind(kind(t, "sand"), Config{Settings: games.Values{"grid": 32}, Until: 60}, solo)
	if err != nil {
		t.Fatal(err)
	}
	defer sa.Close()
	sa.Tick(now)
	sa.Control(now, draw.Controls{Keys: draw.Key3 | draw.Fire})
	sa.Control(now, draw.Controls{Keys: draw.Fire})
	if sa.input != packed(t, sand.Input{Pour: true, Material: sand.Water}) {
		t.Fatalf("sand input %+v", sa.input)
	}
	play(sa)
	if s := sa.Sounds(nil); len(s) != 1 || s[0].FromHz != 880 {
		t.Fatalf("sounds %+v", s)
	}
	if w, h := sa.Size(); w != 64 || h != 64 {
		t.Fatalf("sand size %d×%d", w, h)
	}
}

// TestEveryGameSeated plays a single-player seat of every registered
// game (the built-ins and examples/paint) through its Kind to tick 60:
// each verifies it, draws a list that is more than a clear, and the
// viewer's controls (right and fire held) reach the game's input; its
// stats count one player (the HUD's "players N"); an unknown name's error names the games.
func TestEveryGameSeated(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, e := range games.All() {
		t.Run(e.Name, func(t *testing.T) {
			p, err := OpenKind(FromEntry(e), Config{Until: 60}, func(g games.Game, opts rewind.Options) (*rewind.Session[games.Input], error) {
				return rewind.Play(g, opts)
			})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			for i := 0; i < 600 && !p.Done(); i++ {
				p.Tick(now)
				p.Control(now, draw.Controls{Keys: draw.Right | draw.Fire, Width: 512, Height: 512})
				now = now.Add(time.Second / 240)
			}
			if !p.Done() || p.Err() != nil {
				t.Fatalf("done %v, err %v", p.Done(), p.Err())
			}
			if p.input == (games.Input{}) {
				t.Fatal("right and fire held: the input stayed zero")
			}
			if n := p.Stats().Players; n != 1 {
				t.Fatalf("players %d in a match of one (the HUD's players N)", n)
			}
			var l draw.List
			w, h := p.Size()
			p.Draw(now, w, h, &l)
			if w <= 0 || h <= 0 || l.Len() < 2 {
				t.Fatalf("%d×%d canvas, %d commands", w, h, l.Len())
			}
		})
	}
	if _, err := Lookup("nosuchgame"); err == nil || !strings.Contains(err.Error(), "sand") {
		t.Fatalf("unknown game: %v", err)
	}
}

// TestOtherGameRefused: a sand seat that joins a ships match (a tab
// whose page guessed the wrong game) is refused, and the server names
// its game: OtherGame reads "ships" from the seat's error, and the error
// says it.
func TestOtherGameRefused(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 10 * time.Millisecond})
	conn, _ := net.Listen("host")
	ships, err := kind(t, "ships").New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(ships, conn, server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	pconn, _ := net.Dial("player", "host")
	p, err := OpenKind(kind(t, "sand"), Config{Room: "K3F9QX"}, func(g games.Game, opts rewind.Options) (*rewind.Session[games.Input], error) {
		return rewind.Connect(g, pconn, opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	now := start
	for i := 0; i < 2000 && p.Err() == nil; i++ {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		_ = srv.Update(now)
		p.Tick(now)
	}
	if g := OtherGame(p.Err()); g != "ships" || !strings.Contains(p.Err().Error(), "the match plays ships") {
		t.Fatalf("the sand seat's error %v: other game %q, want ships", p.Err(), g)
	}
	if g := OtherGame(errors.New("client: refused")); g != "" {
		t.Fatalf("another error: %q", g)
	}
}

// TestHiddenUntilRepaired: at the Until tick, a seat of a game that hides
// information (cards) whose tick was mispredicted and then repaired
// (OnDesync, then OnVerified with the repaired world's hash, as the
// client calls them) is verified there, as `rewind play` is; a seat of
// another game with a desync at Until is not.
func TestHiddenUntilRepaired(t *testing.T) {
	for _, c := range []struct {
		game string
		bad  bool
	}{{"cards", false}, {"sand", true}} {
		p, err := OpenKind(kind(t, c.game), Config{Until: 60}, func(g games.Game, opts rewind.Options) (*rewind.Session[games.Input], error) {
			return rewind.Play(g, opts)
		})
		if err != nil {
			t.Fatal(err)
		}
		p.onDesync(60, 1, 2)
		p.onVerified(60, 3)
		if p.untilBad != c.bad || !p.gotUntil || p.untilHash != 3 {
			t.Errorf("%s: untilBad %v (want %v), got %v, hash %x", c.game, p.untilBad, c.bad, p.gotUntil, p.untilHash)
		}
		p.Close()
	}
}
