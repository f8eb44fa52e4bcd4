//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/module"
	"github.com/rewindnet/rewind/view/tab"
)

// benchTicks and benchRollbacks size the in-tab measurement (?bench):
// 30 s of play by four pouring bots, then that many 60-tick rollbacks.
const (
	benchTicks     = 30 * 60
	benchRollbacks = 15
)

// postBench measures, in this Worker with performance.now, what
// games/sand's BenchmarkStep and BenchmarkRollback60 measure natively
// and under Node, on the same world (256×256 cells after 30 s of play by
// four pouring bots): a client's predicted and verified tick (Step, a
// snapshot and a hash) and a client's 60-tick rollback (one more tick
// predicted and verified, then the world restored 60 ticks back and the
// 60 ticks simulated and snapshotted again: SyncTest.Rollback; a client
// hashes a tick when it verifies it, not each time it simulates it).
// It posts the page tab.MsgBench with tick_ms (the mean over the 1,800
// ticks) and rollback60_ms (each rollback's), which page.js keeps in
// window.rewindBench. The page asks for it with ?bench, once its player
// is done: the match's own ticks are not slowed. A tab that played a
// WebAssembly module measures that module the same way (game=module),
// on the browser's engine (issue 40's goal: a 60-tick rollback ≤ 4 ms).
func (w *worker) postBench(p match) {
	perf := js.Global().Get("performance")
	now := func() float64 { return perf.Call("now").Float() }
	m := js.Global().Get("Object").New()
	m.Set("t", tab.MsgBench)
	if mg := moduleOf(p); mg != nil {
		m.Set("game", "module")
		benchSyncTest(m, now, mg, func(p int, t uint32) module.Input {
			return module.InputOf([]byte{byte((t/20 + uint32(p)) * 37)})
		})
		w.post(m)
		return
	}
	benchSyncTest(m, now, sand.New(256), sand.Bot)
	w.post(m)
}

// moduleOf returns the WebAssembly module's game p played, or nil (the
// bench measures sand then).
func moduleOf(p match) *module.Game {
	pl, ok := p.(*played[games.Input])
	if !ok {
		return nil
	}
	mg, _ := games.Unerase(pl.Played.Played()).(*module.Game) // the field's method (the field's name hides it)
	return mg
}

// benchSyncTest fills m with tick_ms and rollback60_ms of g played by
// four bots (bot).
func benchSyncTest[I any, P ~int | ~uint8](m js.Value, now func() float64, g rewind.Game[I], bot func(P, uint32) I) {
	st, err := rewind.NewSyncTest[I](g, 4, 60)
	if err != nil {
		m.Set("error", err.Error())
		return
	}
	in := make([]I, 4)
	var tick uint32
	step := func() error {
		tick++
		for p := range in {
			in[p] = bot(P(p), tick)
		}
		return st.Step(in)
	}
	st.SetChecking(false)
	t0 := now()
	for range benchTicks {
		err = step()
	}
	m.Set("tick_ms", (now()-t0)/benchTicks)
	var rb []any
	for range benchRollbacks {
		t := now()
		if e := step(); e != nil {
			err = e
		}
		st.Rollback()
		rb = append(rb, now()-t)
	}
	m.Set("rollback60_ms", rb)
	if err != nil {
		m.Set("error", err.Error())
	}
}
