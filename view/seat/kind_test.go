package seat

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/games/ships"
)

// TestPlayedKind plays single-player ships and sand seats through their
// Kinds in made-up time to Until, steered by the engine's controls: each
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
	sh, err := OpenKind(Ships(), Config{Room: "SH1PS2", Until: 120}, func(g rewind.Game[ships.Input], opts rewind.Options) (*rewind.Session[ships.Input], error) {
		return rewind.Play(g, opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	sh.Tick(now)
	sh.Control(now, draw.Controls{Keys: draw.Left | draw.Up | draw.Fire})
	if sh.input != (ships.Input{Turn: 1, Thrust: true, Fire: true}) {
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
	sa, err := OpenKind(Sand(), Config{Side: 32, Until: 60}, func(g rewind.Game[sand.Input], opts rewind.Options) (*rewind.Session[sand.Input], error) {
		return rewind.Play(g, opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sa.Close()
	sa.Tick(now)
	sa.Control(now, draw.Controls{Keys: draw.Key3 | draw.Fire})
	sa.Control(now, draw.Controls{Keys: draw.Fire})
	if sa.input != (sand.Input{Pour: true, Material: sand.Water}) {
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
