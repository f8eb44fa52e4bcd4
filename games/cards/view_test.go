package cards

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
	prev, cur := played(t, g, 3, 100)
	var l draw.List
	w, h := g.Size()
	g.Draw(rewind.View{Prev: prev, Cur: cur, Alpha: 1, Me: 1, Width: w, Height: h}, &l)
	hand := g.hand[g.state.Get(cur).HandOf[1]].Len(cur)
	if hand == 0 {
		t.Fatal("no hand dealt")
	}
	n := ops(&l)
	cards := hand + g.table.Len(cur)
	if n[draw.OpClear] != 1 || n[draw.OpFillRect] != cards || n[draw.OpRect] != cards {
		t.Fatalf("ops %v, %d cards", n, cards)
	}
	if CardName(1) != "AS" || CardName(23) != "10H" || CardName(52) != "KC" || CardName(0) != "?" {
		t.Fatal("card names")
	}
}

func TestControl(t *testing.T) {
	g := New()
	v := rewind.View{Me: 0, Width: 560, Height: 420}
	in := g.Control(v, draw.Controls{Keys: draw.Fire}, Input{Seq: 7})
	if in != (Input{Action: Draw, Seq: 8}) {
		t.Fatalf("fire: %+v", in)
	}
	if again := g.Control(v, draw.Controls{Keys: draw.Fire}, in); again != in {
		t.Fatalf("held: %+v", again)
	}
	in = g.Control(v, draw.Controls{}, in)
	if in != (Input{Seq: 8}) {
		t.Fatalf("released: %+v", in)
	}
	x, y, _, _ := handRect(2, 420)
	in = g.Control(v, draw.Controls{Keys: draw.PointerDown | draw.Fire, X: int32(x + 3), Y: int32(y + 3), Width: 560, Height: 420}, in)
	if in != (Input{Action: Play, Arg: 2, Seq: 9}) {
		t.Fatalf("click on the third card: %+v", in)
	}
	if in = g.Control(v, draw.Controls{Keys: draw.Key2}, in); in != (Input{Action: Play, Arg: 1, Seq: 10}) {
		t.Fatalf("key 2: %+v", in)
	}
}
