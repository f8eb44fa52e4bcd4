package walkers

import (
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// TestSyncTest runs walkers under the sync test: every tick is rolled back
// and simulated again, and must hash the same.
func TestSyncTest(t *testing.T) {
	st, err := rewind.NewSyncTest[Input](New(), 6, 8)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]Input, 6)
	for tick := uint32(1); tick <= 600; tick++ {
		for p := range in {
			in[p] = Bot(rewind.PlayerID(p), tick)
		}
		if err := st.Step(in); err != nil {
			t.Fatal(err)
		}
	}
}

// newWorld returns a walkers game and its set-up world.
func newWorld(t *testing.T) (*Game, *world.World) {
	t.Helper()
	g := New()
	s := world.NewSchema()
	if err := g.Register(s); err != nil {
		t.Fatal(err)
	}
	w, err := world.New(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Setup(w); err != nil {
		t.Fatal(err)
	}
	return g, w
}

// TestWalkAndBlock checks the rules: a walker reaches its destination in
// whole centimetres at Speed per tick, and two walkers heading into each
// other stop 2·Radius apart.
func TestWalkAndBlock(t *testing.T) {
	g, w := newWorld(t)
	tk := rewind.Tick[Input]{Inputs: make([]Input, 2), Present: []bool{true, true},
		Events: []rewind.Event{{Kind: rewind.Join, Player: 0}, {Kind: rewind.Join, Player: 1}}}
	x0, y0 := Spawn(0)
	x1, _ := Spawn(1)
	if y0 != -700 || x1-x0 != 200 {
		t.Fatalf("spawns (%d,%d) and x=%d", x0, y0, x1)
	}
	// Player 0 walks far east along its row, through player 1's spawn.
	tk.Inputs[0] = Input{X: 4000, Y: y0, Move: true}
	for i := uint32(1); i <= 100; i++ {
		tk.Number = i
		g.Step(w, &tk)
		tk.Events = nil
	}
	ws := g.Walkers(w)
	if ws[0].X != x1-2*Radius || ws[0].Blocked != 1 || ws[1].X != x1 {
		t.Fatalf("walker 0 at x=%d blocked=%d, walker 1 at x=%d: want 0 stopped at %d", ws[0].X, ws[0].Blocked, ws[1].X, x1-2*Radius)
	}
	st := g.State(w)
	if st.Tick != 100 || st.Walkers != 2 || st.Blocked == 0 {
		t.Fatalf("state %+v", st)
	}
	// Player 1 leaves: player 0 walks on to its destination.
	tk.Events = []rewind.Event{{Kind: rewind.Leave, Player: 1}}
	for i := uint32(101); i <= 1100; i++ {
		tk.Number = i
		g.Step(w, &tk)
		tk.Events = nil
	}
	ws = g.Walkers(w)
	if len(ws) != 1 || ws[0].X != 4000 || ws[0].Y != y0 || ws[0].Blocked != 0 {
		t.Fatalf("walkers %+v: want one at (4000, %d)", ws, y0)
	}
}

// TestStepToward checks a diagonal step: truncated toward zero, never past
// the destination.
func TestStepToward(t *testing.T) {
	cases := []struct{ x, y, tx, ty, wx, wy int32 }{
		{0, 0, 300, 400, 3, 4},
		{0, 0, -300, -400, -3, -4},
		{0, 0, 3, 4, 3, 4},
		{0, 0, 100, 1, 5, 0},
		{10, 10, 10, 10, 10, 10},
	}
	for _, c := range cases {
		x, y := stepToward(c.x, c.y, c.tx, c.ty)
		if x != c.wx || y != c.wy {
			t.Errorf("stepToward(%d,%d → %d,%d) = (%d,%d), want (%d,%d)", c.x, c.y, c.tx, c.ty, x, y, c.wx, c.wy)
		}
	}
	for n := int64(0); n < 100000; n++ {
		r := isqrt(n)
		if r*r > n || (r+1)*(r+1) <= n {
			t.Fatalf("isqrt(%d) = %d", n, r)
		}
	}
}
