//go:build js && wasm

// Command page is the browser's rewind player, the page's drawing
// program: it draws the frames the match's Worker posts on a 2-D canvas
// on the browser's animation frames (draw.go: no Ebitengine, and no
// client, server or game code) and posts the keys and mouse to it
// (controls.go). The match itself (the Go client, the game's Step, the
// rollbacks, the data channel's traffic and the tick handler that
// writes #status) runs in a dedicated Worker, the program
// view/page/worker, which boot.js starts as soon as the page loads;
// boot.js also joins the room (the relay's WebSocket, the page's
// RTCPeerConnection, which workers do not have, and the data channel,
// handed to the Worker at its creation) while the programs download, and
// page.js starts this one once the Worker has verified its first tick.
// What else a tab does at the relay (hosting a room, a host migration's
// claims: pion's js side and the relay's client) is a third program,
// view/page/relay, which page.js starts only in a tab that hosts or at
// the Worker's first claim: this one links neither, so it is small and
// soon started.
//
// The page's URL and its <html> element's data attributes say what to join (tab.ParseConfig): the demo's
// hosted room and its game (data-game), or ?room=CODE (&game=NAME);
// whatever the game, the Worker draws it into a draw list (package
// draw) that this program draws (canvas.go); ?relay=URL joins through another relay;
// ?watch=CODE (or ?watch alone) watches the room's match as a spectator,
// &delay=D that far behind; ?until-tick=T stops the player once its
// verified tick reaches T; ?timeout=D gives up when the server is silent
// for D; ?channel=port takes the MessagePort path; ?host=1 hosts a new
// room (&grid=N: its sand grid's side) and shows its code and the link
// to share in #share (view/page/relay). The page's #mode link switches between playing and
// watching the same room.
package main

import (
	"net/url"
	"sync/atomic"
	"syscall/js"

	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/view/tab"
)

func main() {
	tab.Mark("main")
	doc := js.Global().Get("document")
	cfg, err := tab.PageConfig()
	q, _ := url.ParseQuery(js.Global().Get("location").Get("search").String())
	modeLink(doc, cfg.Room, q.Get("relay"), cfg.Watch)
	if err != nil {
		return // the Worker parses the same settings and says failed in #status
	}
	pg := &page{worker: js.Global().Get("rewindWorker"), cfg: cfg, relay: q.Get("relay"), wake: make(chan struct{}, 1)}
	tab.SetWake("rewindSetWake", pg.wake)
	go pg.fromWorker()

	msg := "joining room " + cfg.Room + " ..."
	switch {
	case cfg.Watch:
		msg = "joining room " + cfg.Room + " as a spectator ..."
	case cfg.Host:
		msg = "hosting a new room ..."
	}
	pg.waiting.Store(&msg)
	pg.ctl = newControls()
	pg.scr = newScreen(pg.ctl)
	// The canvas draws from the first animation frame (a 2-D canvas:
	// nothing to set up). boot.js joined the room (or failed to: a
	// joinfailed message) before this program started; the Worker
	// verifies ticks without it.
	pg.animate()
	js.Global().Set("rewindDrawBench", js.FuncOf(func(_ js.Value, args []js.Value) any {
		n := 200
		if len(args) > 0 && args[0].Type() == js.TypeNumber {
			n = args[0].Int()
		}
		return pg.benchDraw(n)
	}))
	select {} // the Worker's messages go on
}

// modeLink points the page's #mode link (if any) at the other way of
// being in room: watching it when the page plays, playing it when the
// page watches; relay, if set, is kept in the link. A watching page's
// #hint (the controls) says the keys steer nothing.
func modeLink(doc js.Value, room, relay string, watch bool) {
	a := doc.Call("getElementById", "mode")
	if a.IsNull() || room == "" {
		return
	}
	q := url.Values{}
	text := "watch as a spectator"
	if watch {
		q.Set("room", room)
		text = "spectating: play instead"
	} else {
		q.Set("watch", room)
	}
	if relay != "" {
		q.Set("relay", relay)
	}
	a.Set("href", "?"+q.Encode())
	a.Set("textContent", text)
	if h := doc.Call("getElementById", "hint"); watch && !h.IsNull() {
		h.Set("textContent", "spectating: no player slot, the keys steer nothing")
	}
}

// page is the drawing program's state: the newest frame, the controls
// and what the canvas says before the first frame.
type page struct {
	worker js.Value
	cfg    tab.Config
	relay  string // ?relay=, kept in the #mode link
	wake   chan struct{}

	buf  []byte
	cur  tab.Frame
	have bool

	waiting atomic.Pointer[string] // what the canvas says before the first frame
	ctl     *controls
	scr     *screen
	input   draw.Controls // the last controls posted to the Worker
	posted  bool
	redraw  js.Func
}

// post posts the Worker a message of kind t with key, value pairs.
func (pg *page) post(t string, kv ...any) {
	pg.worker.Call("postMessage", tab.Message(t, kv...))
}

// fromWorker takes the messages boot.js leaves for this program:
// boot.js's joinfailed (its join failed: the canvas says why) and the
// relay program's say (what the canvas says: a room it could not host)
// and hosting (the room this tab hosts: the #mode link names it).
func (pg *page) fromWorker() {
	tab.Take(pg.wake, "rewindFromWorker", func(m js.Value) {
		switch m.Get("t").String() {
		case "joinfailed":
			msg := "cannot join room " + m.Get("room").String() + ": " + m.Get("err").String()
			pg.waiting.Store(&msg)
		case "say":
			msg := m.Get("text").String()
			pg.waiting.Store(&msg)
		case "hosting":
			modeLink(js.Global().Get("document"), m.Get("code").String(), pg.relay, false)
		}
	})
}
