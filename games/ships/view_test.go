package ships

import (
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/world"
)

// played returns the worlds of ticks-1 and ticks of a match of g between
// players scripted bots.
func played(t *testing.T, g *Game, players int, ticks uint32) (prev, cur *world.World) {
	t.Helper()
	st, err := rewind.NewSyncTest[Input](g, players, 0)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]Input, players)
	prev = world.NewFromLayout(st.World().Layout())
	for tick := uint32(1); tick <= ticks; tick++ {
		for p := range in {
			in[p] = Bot(rewind.PlayerID(p), tick)
		}
		if err := prev.CopyFrom(st.World()); err != nil {
			t.Fatal(err)
		}
		if err := st.Step(in); err != nil {
			t.Fatal(err)
		}
	}
	return prev, st.World()
}

// ops counts the ops of l.
func ops(l *draw.List) map[draw.Op]int {
	n := map[draw.Op]int{}
	for i := range l.Len() {
		n[l.Command(i).Op]++
	}
	return n
}

func TestDraw(t *testing.T) {
	g := New()
	prev, cur := played(t, g, 3, 200)
	var l draw.List
	w, h := g.Size()
	g.Draw(rewind.View{Prev: prev, Cur: cur, Alpha: 0.3, Me: 0, Width: w, Height: h}, &l)
	n := ops(&l)
	if n[draw.OpClear] != 1 || n[draw.OpRect] != 1 || n[draw.OpText] != 6 || n[draw.OpCircle] < 3+len(g.Shots(cur)) {
		t.Fatalf("ops %v (%d shots)", n, len(g.Shots(cur)))
	}
}

func TestControl(t *testing.T) {
	g := New()
	for _, c := range []struct {
		k  draw.Keys
		in Input
	}{
		{draw.Left, Input{Turn: 1}},
		{draw.Right | draw.Up, Input{Turn: -1, Thrust: true}},
		{draw.Fire | draw.Left | draw.Right, Input{Fire: true}},
	} {
		if in := g.Control(rewind.View{}, draw.Controls{Keys: c.k}, Input{}); in != c.in {
			t.Errorf("%b: %+v, want %+v", c.k, in, c.in)
		}
	}
	if _, ok := Sound(rewind.Effect{Kind: EffectHit}); !ok {
		t.Fatal("no hit sound")
	}
}
