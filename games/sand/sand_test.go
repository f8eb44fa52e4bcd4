package sand

import (
	"runtime"
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/tools/cputime"
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

// BenchmarkStep steps the demo's world (256×256, as rewind demo hosts it)
// with 4 pouring players, over ticks 1801-2400 (after 30 s of play, the
// state BenchmarkRollback60 rolls back in; again and again: the world is
// restored at tick 1800 every 600 ticks). BenchmarkStepOld steps the same
// ticks with the old Step (oldstep_test.go), for comparison. Reported
// beside the wall time: cpu-us/tick, the thread's CPU time (the process's
// under Node; the machine is shared, so it is the steadier figure).
func BenchmarkStep(b *testing.B)    { benchStep(b, (*Game).Step, 600, 1) }
func BenchmarkStepOld(b *testing.B) { benchStep(b, (*Game).refStep, 600, 1) }

// BenchmarkRestoreStep60 is the game's part of a 60-tick rollback of the
// demo's world: restore the world of tick 1800 (after 30 s of play by 4
// pouring players), then Step ticks 1801-1860; BenchmarkRestoreStep60Old
// with the old Step. Reported per rollback: cpu-ms/rollback, as above.
// (BenchmarkRollback60 adds what a client adds: a snapshot of every tick,
// one tick more, predicted and verified.)
func BenchmarkRestoreStep60(b *testing.B)    { benchStep(b, (*Game).Step, 60, 60) }
func BenchmarkRestoreStep60Old(b *testing.B) { benchStep(b, (*Game).refStep, 60, 60) }

// benchStep plays the demo's world to tick 1800 and then steps ticks
// 1801..1800+window again and again, restoring the world of tick 1800 at
// the start of each window, perOp ticks per benchmark op.
func benchStep(b *testing.B, step func(*Game, *world.World, *rewind.Tick[Input]), window, perOp uint32) {
	g := New(256)
	w := newWorld(b, g)
	tk := rewind.Tick[Input]{Inputs: make([]Input, 4), Present: make([]bool, 4)}
	for p := range 4 {
		tk.Events = append(tk.Events, rewind.Event{Kind: rewind.Join, Player: rewind.PlayerID(p)})
		tk.Present[p] = true
	}
	const start = 30 * 60
	var at30 world.Snapshot
	next := func(tick uint32) {
		tk.Number = tick
		if tick == 2 {
			tk.Events = tk.Events[:0]
		}
		for p := range 4 {
			tk.Inputs[p] = Bot(rewind.PlayerID(p), tick)
		}
		step(g, w, &tk)
	}
	for tick := uint32(1); tick <= start; tick++ {
		next(tick)
	}
	w.SnapshotInto(&at30)
	tick := start + window // the first op restores (the same world)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, _ := cputime.Thread()
	for b.Loop() {
		if tick == start+window {
			if err := w.Restore(&at30); err != nil {
				b.Fatal(err)
			}
			tick = start
		}
		for range perOp {
			tick++
			next(tick)
		}
	}
	c1, _ := cputime.Thread()
	if perOp == 1 {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/1e3, "cpu-us/tick")
	} else {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/rollback")
	}
}

// BenchmarkRollback60 measures what a client does in a rollback of 60
// ticks (one second at 60 Hz, the prediction window) on the 256×256 sand
// world after 30 s of play by 4 pouring players: it predicts and verifies
// one more tick (Step, a snapshot, a hash), restores the snapshot 60 ticks
// back and simulates and snapshots each of the 60 ticks again
// (SyncTest.Rollback). A client hashes a tick once, when it verifies it,
// not each time it simulates it again; BenchmarkSyncTest60 is the same
// with a hash of each of the 60 ticks as well (SyncTest's check after
// every tick, and what BenchmarkRollback60 measured before the client's
// hashes were lazy). The Old variants run the old Step. Reported:
// ms/rollback of wall time and cpu-ms/rollback of the thread's CPU time
// (the machine is shared: the CPU time is the steadier figure).
func BenchmarkRollback60(b *testing.B)    { benchRollback(b, New(256), false) }
func BenchmarkRollback60Old(b *testing.B) { benchRollback(b, oldStep{New(256)}, false) }
func BenchmarkSyncTest60(b *testing.B)    { benchRollback(b, New(256), true) }

// oldStep is the game with the old Step (oldstep_test.go).
type oldStep struct{ *Game }

func (g oldStep) Step(w *world.World, t *rewind.Tick[Input]) { g.refStep(w, t) }

func benchRollback(b *testing.B, g rewind.Game[Input], check bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	st, err := rewind.NewSyncTest[Input](g, 4, 60)
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
	st.SetChecking(check)
	c0, _ := cputime.Thread()
	b.ResetTimer()
	for b.Loop() {
		step()
		if !check {
			st.Rollback()
		}
	}
	c1, _ := cputime.Thread()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/rollback")
	b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/rollback")
}
