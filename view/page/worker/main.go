//go:build js && wasm

// Command worker is the program of a browser tab's match Worker: the Go
// client, the game's Step, the rollbacks and the data channel's traffic,
// off the page's drawing thread (view/page is the page's program; the
// page's worker.js starts this one). The page sends it the page's
// settings (tab.MsgStart) and the data channel it opened at the relay
// (transferred to this Worker, or forwarded over a MessagePort); its
// own timer ticks the match every half tick, which a hidden tab does not
// throttle in a dedicated Worker, and after each run of the tick handler
// it posts the page the #status line (tab.MsgTick) and, when the
// predicted world changed, the frame to draw (tab.MsgFrame, a
// transferred buffer). A host migration's claim goes through the page,
// which holds the relay connection and the RTCPeerConnection
// (tab.MsgClaim). It plays any game registered in the programs'
// registration point, view/internal/allgames (?game=NAME).
package main

import (
	"syscall/js"
	"time"

	"github.com/rewindnet/rewind"
	_ "github.com/rewindnet/rewind/view/internal/allgames" // the games a tab plays
	"github.com/rewindnet/rewind/view/tab"
)

func main() {
	w := newWorker()
	js.Global().Call("rewindSetWake", js.FuncOf(func(js.Value, []js.Value) any {
		w.poke()
		return nil
	}))
	w.postKind(tab.MsgReady, "at", tab.Now())
	w.run()
}

// poke wakes the loop without blocking.
func (w *worker) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// post posts m to the page.
func (w *worker) post(m js.Value, transfer ...any) {
	if len(transfer) > 0 {
		js.Global().Call("postMessage", m, transfer)
		return
	}
	js.Global().Call("postMessage", m)
}

// postKind posts a message of kind t with the given key, value pairs.
func (w *worker) postKind(t string, kv ...any) {
	m := js.Global().Get("Object").New()
	m.Set("t", t)
	for i := 0; i+1 < len(kv); i += 2 {
		m.Set(kv[i].(string), kv[i+1])
	}
	w.post(m)
}

// run takes the page's messages and the timer's ticks until the player
// is done.
func (w *worker) run() {
	for {
		select {
		case <-w.wake:
			w.inbox()
			if w.player != nil {
				w.player.Tick(time.Now()) // datagrams as they come: the ping is the network's
			}
		case <-w.ticks:
			w.tick()
		}
		if w.stopped {
			return
		}
	}
}

// startTimer starts the Worker's timer: the loop's ticks every half tick.
func (w *worker) startTimer(rate int) {
	if rate <= 0 {
		rate = rewind.DefaultTickRate
	}
	every := max(time.Second/time.Duration(rate)/2, time.Millisecond)
	w.period = time.Second / time.Duration(rate)
	w.timer = js.FuncOf(func(js.Value, []js.Value) any {
		select {
		case w.ticks <- struct{}{}:
		default:
		}
		return nil
	})
	w.interval = js.Global().Call("setInterval", w.timer, float64(every)/float64(time.Millisecond))
}
