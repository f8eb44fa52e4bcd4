package sand

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

func TestDraw(t *testing.T) {
	g := New(64)
	prev, cur := played(t, g, 3, 100)
	w, h := g.Size()
	if w != 128 || h != 128 {
		t.Fatalf("Size %d×%d", w, h)
	}
	var l draw.List
	g.Draw(rewind.View{Prev: prev, Cur: cur, Alpha: 0.5, Me: 1, Width: 300, Height: 200}, &l)
	ops := map[draw.Op]int{}
	for i := range l.Len() {
		c := l.Command(i)
		ops[c.Op]++
		if c.Op == draw.OpCells {
			cols, rows := draw.CellsSize(c)
			cw, ch := draw.CellPixels(c)
			if cols != 64 || rows != 64 || cw != 3 || ch != 3 || c.Args[0] != (300-192)/2 || c.Args[1] != 4 {
				t.Fatalf("cells %d×%d of %d×%d px at %d,%d", cols, rows, cw, ch, c.Args[0], c.Args[1])
			}
			if string(l.Data(c)) != string(draw.Indexes(g.Cells(cur))) {
				t.Fatal("the block is not the grid")
			}
		}
	}
	// 3 avatars: a square and an id each; the viewer's outline and its material.
	if ops[draw.OpClear] != 1 || ops[draw.OpPalette] != 4 || ops[draw.OpCells] != 1 || ops[draw.OpFillRect] != 3 || ops[draw.OpText] != 4 || ops[draw.OpRect] < 1 {
		t.Fatalf("ops %v", ops)
	}
}

func TestControl(t *testing.T) {
	g := New(64)
	_, cur := played(t, g, 2, 10)
	v := rewind.View{Cur: cur, Me: 1, Width: 128, Height: 128}
	in := g.Control(v, draw.Controls{Keys: draw.Left | draw.Down | draw.Fire}, Input{})
	if in != (Input{MoveX: -1, MoveY: 1, Pour: true, Material: Material(g.Avatars(cur)[1].Material)}) {
		t.Fatalf("%+v", in)
	}
	in = g.Control(v, draw.Controls{Keys: draw.Key3}, in)
	if in != (Input{Material: Water}) {
		t.Fatalf("key 3: %+v", in)
	}
	in = g.Control(v, draw.Controls{Keys: draw.Right}, in) // the material stays
	if in != (Input{MoveX: 1, Material: Water}) {
		t.Fatalf("after key 3: %+v", in)
	}
	if in = g.Control(rewind.View{Me: -1}, draw.Controls{}, Input{}); in.Material != Sand {
		t.Fatalf("no world: %+v", in)
	}
	if s, ok := Sound(rewind.Effect{Kind: EffectPour}); !ok || s.Ms != 70 {
		t.Fatal("no pour sound")
	}
	if _, ok := Sound(rewind.Effect{Kind: 99}); ok {
		t.Fatal("a sound of another effect")
	}
}
