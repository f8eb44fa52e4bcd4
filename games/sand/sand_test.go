package sand

import (
	"runtime"
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/cputime"
	"github.com/rewindnet/rewind/world"
)

// TestSyncTest runs sand under the sync test: every tick is rolled back and
// simulated again, and must hash the same.
func TestSyncTest(t *testing.T) {
	st, err := rewind.NewSyncTest[Input](New(64), 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]Input, 4)
	for tick := uint32(1); tick <= 300; tick++ {
		for p := range in {
			in[p] = Bot(rewind.PlayerID(p), tick)
		}
		if err := st.Step(in); err != nil {
			t.Fatal(err)
		}
	}
	g := st.World()
	_ = g
}

// TestGrainsConserved checks that falling neither makes nor loses grains.
func TestGrainsConserved(t *testing.T) {
	g := New(32)
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
	count := func() (n [4]int) {
		for _, c := range g.Cells(w) {
			n[c]++
		}
		return n
	}
	for x := 4; x < 28; x++ {
		g.cells.Set(w, x, 2, Sand)
		g.cells.Set(w, x, 3, Water)
	}
	before := count()
	tk := rewind.Tick[Input]{Inputs: make([]Input, 1), Present: make([]bool, 1)}
	for i := uint32(1); i <= 200; i++ {
		tk.Number = i
		g.Step(w, &tk)
	}
	if after := count(); after != before {
		t.Fatalf("cells by material before %v, after %v", before, after)
	}
	// Everything has settled below row 3: sand sank through the water.
	for x := 4; x < 28; x++ {
		if g.cells.Get(w, x, 2) != Empty {
			t.Fatalf("cell (%d, 2) still holds %d", x, g.cells.Get(w, x, 2))
		}
	}
}

// BenchmarkStep steps a 256×256 world with 4 pouring players, after 10 s
// of play.
func BenchmarkStep(b *testing.B) {
	g := New(256)
	s := world.NewSchema()
	if err := g.Register(s); err != nil {
		b.Fatal(err)
	}
	w, _ := world.New(s)
	_ = g.Setup(w)
	tk := rewind.Tick[Input]{Inputs: make([]Input, 4), Present: make([]bool, 4)}
	tick := uint32(0)
	step := func() {
		tick++
		tk.Number = tick
		tk.Events = tk.Events[:0]
		if tick == 1 {
			for p := range 4 {
				tk.Events = append(tk.Events, rewind.Event{Kind: rewind.Join, Player: rewind.PlayerID(p)})
				tk.Present[p] = true
			}
		}
		for p := range 4 {
			tk.Inputs[p] = Bot(rewind.PlayerID(p), tick)
		}
		g.Step(w, &tk)
	}
	for range 600 {
		step()
	}
	b.ResetTimer()
	for b.Loop() {
		step()
	}
}

// BenchmarkRollback60 measures a rollback of 60 ticks (one second at 60 Hz,
// the prediction window) on the 256×256 sand world after 30 s of play by 4
// pouring players: restore the snapshot 60 ticks back, then simulate,
// snapshot and hash each of the 60 ticks again. rewind.SyncTest does
// exactly that after every tick it steps (plus that tick: predicted, and
// simulated again when a guess of the other players' inputs was wrong, as
// a client does). Reported:
// ms/rollback of wall time and cpu-ms/rollback of the thread's CPU time
// (the machine is shared: the CPU time is the steadier figure).
func BenchmarkRollback60(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	st, err := rewind.NewSyncTest[Input](New(256), 4, 60)
	if err != nil {
		b.Fatal(err)
	}
	in := make([]Input, 4)
	tick := uint32(0)
	step := func() {
		tick++
		for p := range in {
			in[p] = Bot(rewind.PlayerID(p), tick)
		}
		if err := st.Step(in); err != nil {
			b.Fatal(err)
		}
	}
	st.SetChecking(false)
	for range 30 * 60 {
		step()
	}
	st.SetChecking(true)
	c0, _ := cputime.Thread()
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	c1, _ := cputime.Thread()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/rollback")
	b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/rollback")
}
