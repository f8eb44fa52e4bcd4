package walkers

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
	prev, cur := played(t, g, 4, 100)
	var l draw.List
	g.Draw(rewind.View{Prev: prev, Cur: cur, Alpha: 1, Me: 2, Width: 500, Height: 500}, &l)
	n := ops(&l)
	// 11+11 field lines, a line to each destination, a disc each and the viewer's rim.
	if n[draw.OpClear] != 1 || n[draw.OpCircle] != 5 || n[draw.OpText] != 4 || n[draw.OpLine] < 22 {
		t.Fatalf("ops %v", n)
	}
}

func TestControl(t *testing.T) {
	g := New()
	_, cur := played(t, g, 2, 1)
	v := rewind.View{Cur: cur, Me: 1, Width: 500, Height: 500}
	in := g.Control(v, draw.Controls{Keys: draw.PointerDown | draw.Fire, X: 250, Y: 0, Width: 500, Height: 500}, Input{})
	if in != (Input{X: 0, Y: -HalfField, Move: true}) {
		t.Fatalf("click: %+v", in)
	}
	var x, y int32
	for _, w := range g.Walkers(cur) {
		if w.Player == 1 {
			x, y = w.X, w.Y
		}
	}
	if in = g.Control(v, draw.Controls{Keys: draw.Right}, in); in != (Input{X: x + 200, Y: y, Move: true}) {
		t.Fatalf("right: %+v", in)
	}
	if got := g.Control(v, draw.Controls{}, in); got != in {
		t.Fatalf("nothing held: %+v", got)
	}
}
