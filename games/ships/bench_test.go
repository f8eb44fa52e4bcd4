package ships

import (
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/game"
)

// BenchmarkStep measures one tick of an 8-player match in full flight
// (after 600 ticks of the bots: ships moving, shots in the air): Step
// and the world's hash, as a server or a client pays every tick.
func BenchmarkStep(b *testing.B) {
	g := New()
	_, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		b.Fatal(err)
	}
	tk := rewind.Tick[Input]{Inputs: make([]Input, 8), Present: make([]bool, 8)}
	for p := range 8 {
		tk.Events = append(tk.Events, rewind.Event{Kind: rewind.Join, Player: rewind.PlayerID(p)})
		tk.Present[p] = true
	}
	n := uint32(0)
	next := func() {
		n++
		for p := range 8 {
			tk.Inputs[p] = Bot(rewind.PlayerID(p), n)
		}
		tk.Number = n
		g.Step(w, &tk)
		tk.Events = nil
		_ = w.Hash()
	}
	for range 600 {
		next()
	}
	for b.Loop() {
		next()
	}
}

// BenchmarkRollback60 measures a rollback over the whole prediction
// window in an 8-player match: after each tick, restore the snapshot 60
// ticks back and simulate, snapshot and hash the 60 ticks again
// (rewind.SyncTest with a check distance of 60).
func BenchmarkRollback60(b *testing.B) {
	st, err := rewind.NewSyncTest[Input](New(), 8, 60)
	if err != nil {
		b.Fatal(err)
	}
	in := make([]Input, 8)
	n := uint32(0)
	step := func() {
		n++
		for p := range in {
			in[p] = Bot(rewind.PlayerID(p), n)
		}
		if err := st.Step(in); err != nil {
			b.Fatal(err)
		}
	}
	for range 600 {
		step()
	}
	for b.Loop() {
		step()
	}
}
