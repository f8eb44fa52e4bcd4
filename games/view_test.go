package games_test

import (
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/world"
)

// playedEntry returns a game of e (its default settings) and the worlds
// of ticks-1 and ticks of a match of it between players scripted bots,
// stepped through the registry's erased game.
func playedEntry(t *testing.T, e *games.Entry, players int, ticks uint32) (g games.Game, prev, cur *world.World) {
	t.Helper()
	g, err := e.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	bot, err := e.Bot(games.Scripted, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := rewind.NewSyncTest[games.Input](g, players, 0)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]games.Input, players)
	prev = world.NewFromLayout(st.World().Layout())
	for tick := uint32(1); tick <= ticks; tick++ {
		for p := range in {
			in[p] = bot(rewind.PlayerID(p), tick)
		}
		if err := prev.CopyFrom(st.World()); err != nil {
			t.Fatal(err)
		}
		if err := st.Step(in); err != nil {
			t.Fatal(err)
		}
	}
	return g, prev, st.World()
}

// TestEveryGameViewed checks every built-in game's view through its
// registry entry, the way the page's Worker and the window use it: the
// canvas it asks for is a sane size; its draw list of a played match
// starts with a clear, draws more than that, and survives its binary
// form (the Worker's frame) unchanged; the controls of a spectator
// before the first world (no world, no viewer) make an input without
// panicking, and the same controls twice make the same input (the input
// packed and unpacked on the way); an effect of no kind makes no sound;
// the game says its name (game.Namer: a server refusing a player of
// another game tells it).
// What each game draws and how its keys map are its own package's tests
// (games/*/view_test.go).
func TestEveryGameViewed(t *testing.T) {
	for _, e := range games.All() {
		t.Run(e.Name, func(t *testing.T) {
			if e.Draw == nil || e.Control == nil || e.Size == nil || e.Help == "" {
				t.Fatal("the entry has no Draw, Control, Size or Help")
			}
			g, prev, cur := playedEntry(t, e, 3, 120)
			if n, ok := game.As[game.Namer](g); !ok || n.GameName() != e.Name {
				t.Fatalf("the game says no name, or another: a server could not say which game it plays")
			}
			w, h := e.Size(g)
			if w < 64 || h < 64 || w > 2048 || h > 2048 {
				t.Fatalf("canvas %d×%d", w, h)
			}
			var l draw.List
			e.Draw(g, rewind.View{Prev: prev, Cur: cur, Alpha: 0.5, Me: 1, Width: w, Height: h}, &l)
			if l.Len() < 2 || l.Command(0).Op != draw.OpClear {
				t.Fatalf("%d commands, the first %v: want a clear and more", l.Len(), l.Command(0).Op)
			}
			var back draw.List
			if err := back.UnmarshalBinary(l.AppendBinary(nil)); err != nil || back.Len() != l.Len() {
				t.Fatalf("the list's binary form: %v (%d of %d commands)", err, back.Len(), l.Len())
			}
			c := draw.Controls{Keys: draw.Right | draw.Fire | draw.Key2, X: int32(w / 2), Y: int32(h / 2), Width: int32(w), Height: int32(h)}
			_ = e.Control(g, rewind.View{Me: -1, Width: w, Height: h}, c, games.Input{})
			v := rewind.View{Prev: cur, Cur: cur, Alpha: 1, Me: 1, Width: w, Height: h}
			in := e.Control(g, v, c, games.Input{})
			if again := e.Control(g, v, c, games.Input{}); again != in {
				t.Fatal("the same controls made two inputs")
			}
			if e.Sound != nil {
				if _, ok := e.Sound(rewind.Effect{Kind: 250}); ok {
					t.Fatal("a sound of an effect of no kind")
				}
			}
		})
	}
}
