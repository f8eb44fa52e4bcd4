//go:build js && wasm

// Command page is the browser's rewind player: the Go client compiled to
// js/wasm, which `rewind demo` builds and serves with the page at /. It
// joins the room named by the page (the demo's hosted room, or
// ?room=CODE) over WebRTC (pion drives the browser's RTCPeerConnection),
// draws with the view package on Ebitengine's animation frames, and ticks
// from a Web Worker's timer posting to the page, so that a hidden tab,
// which gets no animation frames and a 1/s setInterval, keeps playing.
// The tick handler writes the #status element (see view.Player.Status);
// ?until-tick=T stops the player once its verified tick reaches T;
// ?relay=URL joins through another relay than the one the page names (the
// ws:// URL `rewind relay` or `rewind serve --relay` used), for a room
// hosted elsewhere. ?watch=CODE (or ?watch alone, for the page's room)
// watches the room's match as a spectator instead, like `rewind watch`:
// no player slot, no input, only the verified ticks, and with
// &delay=D (a Go duration, 3s) that far behind the match; #status then says
// state=spectating. ?timeout=D gives up when the server is silent for D
// (default 5 s, as `rewind play --timeout`). The page's #mode link switches between playing and
// watching the same room. The page joins with host migration: when the match's
// host goes, the tab claims the room again and goes on with the next host
// (a tab never hosts; a desktop window or bot takes the hosting).
package main

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/view"
	"github.com/rewindnet/rewind/view/seat"
)

// joinTimeout bounds the join (signaling and the data channel opening).
const joinTimeout = 30 * time.Second

// mark records performance.now() as rewindTimes[name] (the page's
// timeline: the e2e test and docs/benchmarks.md read it).
func mark(name string) {
	if t := js.Global().Get("rewindTimes"); t.Type() == js.TypeObject {
		t.Set(name, js.Global().Get("performance").Call("now"))
	}
}

func main() {
	mark("main")
	doc := js.Global().Get("document")
	data := doc.Get("body").Get("dataset")
	str := func(v js.Value) string {
		if v.Type() != js.TypeString {
			return ""
		}
		return v.String()
	}
	relayURL, room := str(data.Get("relay")), str(data.Get("room"))
	side, _ := strconv.Atoi(str(data.Get("grid")))
	rate, _ := strconv.Atoi(str(data.Get("tickRate")))
	if rate <= 0 {
		rate = rewind.DefaultTickRate
	}
	q, _ := url.ParseQuery(strings.TrimPrefix(js.Global().Get("location").Get("search").String(), "?"))
	if r := q.Get("room"); r != "" {
		room = strings.ToUpper(r)
	}
	if r := q.Get("relay"); r != "" {
		relayURL = r
	}
	watch := q.Has("watch")
	if r := q.Get("watch"); r != "" {
		room = strings.ToUpper(r)
	}
	var until uint64
	if u := q.Get("until-tick"); u != "" {
		until, _ = strconv.ParseUint(u, 10, 31)
	}
	status := doc.Call("getElementById", "status")
	setStatus := func(s string) { status.Set("textContent", s) }
	setStatus(seat.WaitingStatus(room, "joining"))
	modeLink(doc, room, q.Get("relay"), watch)
	var delay, timeout time.Duration
	for _, d := range []struct {
		name string
		dst  *time.Duration
		ok   func(time.Duration) bool
		want string
	}{
		{"delay", &delay, func(d time.Duration) bool { return d >= 0 && watch }, "a duration such as 3s, with ?watch"},
		{"timeout", &timeout, func(d time.Duration) bool { return d > 0 }, "a positive duration such as 30s"},
	} {
		v := q.Get(d.name)
		if v == "" {
			continue
		}
		var err error
		if *d.dst, err = time.ParseDuration(v); err != nil || !d.ok(*d.dst) {
			msg := fmt.Sprintf("?%s=%s: want %s", d.name, v, d.want)
			setStatus(seat.WaitingStatus(room, "failed") + " error=" + strings.ReplaceAll(msg, " ", "_"))
			return
		}
	}

	g := view.New(side)
	msg := "joining room " + room + " ..."
	if watch {
		msg = "joining room " + room + " as a spectator ..."
	}
	g.Waiting.Store(&msg)
	g.Sound = view.NewSound()
	// Ebitengine starts once the join is through: its first frames (the
	// WebGL context, shaders) keep the page's thread busy for seconds on a
	// slow machine, and the join's WebSocket and data channel events wait
	// for that thread.
	joined := make(chan struct{})
	cfg := seat.Config{Room: room, Side: side, Until: uint32(until), Spectate: watch, Delay: delay, Timeout: timeout}
	go play(g, relayURL, cfg, rate, setStatus, joined)
	<-joined

	ebiten.SetRunnableOnUnfocused(true)
	title := "rewind: room " + room
	if watch {
		title = "rewind: watching room " + room
	}
	ebiten.SetWindowTitle(title)
	if err := ebiten.RunGame(g); err != nil {
		js.Global().Get("console").Call("error", "rewind view: "+err.Error())
	}
	select {} // the Worker's ticks go on
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

// play joins the room of cfg and runs the player's ticks from a Worker's
// timer. It closes joined once the join is through or has failed.
func play(g *view.Game, relayURL string, cfg seat.Config, rate int, setStatus func(string), joined chan struct{}) {
	room := cfg.Room
	defer func() {
		select {
		case <-joined:
		default:
			close(joined)
		}
	}()
	fail := func(err error) {
		msg := fmt.Sprintf("cannot join room %s: %v", room, err)
		g.Waiting.Store(&msg)
		setStatus(seat.WaitingStatus(room, "failed") + " error=" + strings.ReplaceAll(err.Error(), " ", "_"))
		js.Global().Get("console").Call("error", "rewind: "+msg)
	}
	if relayURL == "" || room == "" {
		fail(fmt.Errorf("the page names no relay or room (open the URL rewind demo printed, or add ?room=CODE)"))
		return
	}
	// The Worker's ticks start now: while the join runs, the handler
	// keeps #status fresh too.
	ticks := make(chan struct{}, 1)
	period := time.Second / time.Duration(rate)
	w := startWorker(max(period/2, time.Millisecond), func() {
		select {
		case ticks <- struct{}{}:
		default:
		}
	})
	defer w.Call("terminate")
	type joinResult struct {
		p   *seat.Player
		err error
	}
	joins := make(chan joinResult, 1)
	go func() {
		p, err := seat.NewPlayer(cfg,
			func(g rewind.Game[sand.Input], opts rewind.Options) (*rewind.Session[sand.Input], error) {
				ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
				defer cancel()
				return rooms.Join(ctx, g, relayURL, room, rooms.JoinOptions{Options: opts, HostMigration: true})
			})
		joins <- joinResult{p, err}
	}()
	var p *seat.Player
	for p == nil {
		select {
		case r := <-joins:
			if r.err != nil {
				fail(r.err)
				return
			}
			p = r.p
		case <-ticks:
			setStatus(seat.WaitingStatus(room, "joining"))
		}
	}
	mark("joined")
	g.SetPlayer(p)
	close(joined)
	verified := false
	runs := 0
	for range ticks {
		runs++
		js.Global().Set("rewindHandlerRuns", runs) // for the hidden-tab test
		p.Tick(time.Now())
		setStatus(p.Status())
		if !verified && p.Stats().Verified > 0 {
			verified = true
			mark("verified")
		}
		if p.Done() {
			break
		}
	}
	p.Close()
	if err := p.Err(); err != nil {
		setStatus(p.Status() + " error=" + strings.ReplaceAll(err.Error(), " ", "_"))
		js.Global().Get("console").Call("error", "rewind: "+err.Error())
	}
}

// workerSource is the Worker's whole program: a timer posting to the page.
// A dedicated Worker's timers are not throttled in a hidden tab.
const workerSource = `let every = 8;
onmessage = (e) => { every = e.data; clearInterval(self.t); self.t = setInterval(() => postMessage(0), every); };`

// startWorker starts a Worker that posts to the page every interval and
// calls fn on the page for each post.
func startWorker(every time.Duration, fn func()) js.Value {
	blob := js.Global().Get("Blob").New([]any{workerSource}, map[string]any{"type": "text/javascript"})
	u := js.Global().Get("URL").Call("createObjectURL", blob)
	w := js.Global().Get("Worker").New(u)
	w.Set("onmessage", js.FuncOf(func(js.Value, []js.Value) any {
		fn()
		return nil
	}))
	w.Call("postMessage", float64(every)/float64(time.Millisecond))
	return w
}
