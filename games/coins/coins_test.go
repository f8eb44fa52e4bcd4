package coins

import (
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/game"
)

// TestSyncTest runs coins under the sync test: every tick is rolled back
// 8 ticks and simulated again, and must hash the same.
func TestSyncTest(t *testing.T) {
	st, err := rewind.NewSyncTest[Input](New(7), 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]Input, 4)
	for tick := uint32(1); tick <= 600; tick++ {
		for p := range in {
			in[p] = Bot(rewind.PlayerID(p), tick)
		}
		if err := st.Step(in); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRules checks a few rules by hand: a join spawns at rest, the keys
// accelerate and the top speed holds, a dash doubles it, and two players
// pushed together bump apart with their speeds swapped.
func TestRules(t *testing.T) {
	g := New(1)
	_, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	tk := rewind.Tick[Input]{Number: 1, Inputs: make([]Input, 2), Present: []bool{true, true},
		Events: []rewind.Event{{Kind: rewind.Join, Player: 0}, {Kind: rewind.Join, Player: 1}}}
	tk.Inputs[0].Keys = Right
	g.Step(w, &tk)
	p := g.State(w).P
	if x, y := Spawn(0); p[0].X != x+Accel || p[0].Y != y || p[0].VX != Accel || p[1].VX != 0 {
		t.Fatalf("after one tick of Right: %+v %+v", p[0], p[1])
	}
	tk.Events = nil
	for tk.Number = 2; tk.Number < 200; tk.Number++ {
		g.Step(w, &tk)
	}
	if v := g.State(w).P[0].VX; v > VMax || v < -VMax {
		t.Fatalf("speed %d over VMax", v)
	}
	st := g.State(w)
	st.P[0] = Player{X: 100 * FX, Y: 100 * FX, VX: 5, On: 1}
	st.P[1] = Player{X: 100*FX + Radius, Y: 100 * FX, VX: -7, On: 1}
	tk.Inputs[0].Keys = 0
	g.Step(w, &tk)
	a, b := g.State(w).P[0], g.State(w).P[1]
	if b.X-a.X < 2*Radius-64 || a.VX >= 0 || b.VX <= 0 {
		t.Fatalf("after a bump: %+v %+v", a, b)
	}
	st.P[0], st.P[1] = Player{X: 100 * FX, Y: 100 * FX, On: 1}, Player{}
	tk.Inputs[0].Keys = Right | Fire
	tk.Present[1] = false
	g.Step(w, &tk)
	if p := g.State(w).P[0]; p.VX != 2*VMax+Accel-2*VMax/16 || p.Cool != Dash {
		t.Fatalf("a dash: %+v", p)
	}
}

// TestDrawAndControl: one clear, the frame, the coins, a circle, a frame
// and a score per player; the pointer steers.
func TestDrawAndControl(t *testing.T) {
	g := New(3)
	_, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	g.Step(w, &rewind.Tick[Input]{Number: 1, Inputs: make([]Input, 1), Present: []bool{true},
		Events: []rewind.Event{{Kind: rewind.Join, Player: 0}}})
	var l draw.List
	g.Draw(w, 0, 640, 480, 0, &l)
	if l.Len() != 2+Coins+3 || l.Command(0).Op != draw.OpClear || string(l.Data(l.Command(l.Len()-1))) != "P1 0" {
		t.Fatalf("draw list of %d commands", l.Len())
	}
	x, y := Spawn(0)
	c := draw.Controls{Keys: draw.PointerDown, X: int32(x/FX*2) + 50, Y: int32(y/FX*2) - 50, Width: 640, Height: 480}
	if in := g.Control(w, 0, c); in.Keys != Right|Up {
		t.Fatalf("Control toward up-right: %#x", in.Keys)
	}
}
