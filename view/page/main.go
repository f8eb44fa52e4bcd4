//go:build js && wasm

// Command page is the browser's rewind player, the page's side: what
// only the page's thread can hold. The match itself (the Go client, the
// game's Step, the rollbacks, the data channel's traffic and the tick
// handler that writes #status) runs in a dedicated Worker, the program
// view/page/worker, which page.js starts as soon as the page loads;
// page.js also joins the room (the relay's WebSocket, the page's
// RTCPeerConnection, which workers do not have, and the data channel,
// handed to the Worker at its creation) while the programs download,
// and starts this one once the join has settled. This program claims
// the room again for the Worker's session at a host migration over the
// relay's WebSocket with pion driving the page's RTCPeerConnection,
// hands each data channel to the Worker the moment it is created
// (transferred, or forwarded over a MessagePort where the browser
// cannot: page.js), draws the
// frames the Worker posts on a 2-D canvas on the browser's animation
// frames (draw.go: no Ebitengine, and no client, server or game code, so
// the page's wasm is small) and posts the keys and mouse to it
// (controls.go). A tab may host: with ?host=1 it registers a new room
// with the relay (host.go) and answers the players' offers with its
// RTCPeerConnection, each player's data channel handed to the Worker,
// where the match's server ticks; a tab whose claim makes it the host
// does the same for the room it took over.
//
// The page's URL and its <html> element's data attributes say what to join (tab.ParseConfig): the demo's
// hosted room and its game (data-game: sand, or ships, drawn by
// ships.go), or ?room=CODE (&game=ships for a room of ships); ?relay=URL joins through another relay;
// ?watch=CODE (or ?watch alone) watches the room's match as a spectator,
// &delay=D that far behind; ?until-tick=T stops the player once its
// verified tick reaches T; ?timeout=D gives up when the server is silent
// for D; ?channel=port takes the MessagePort path; ?host=1 hosts a new
// room (&grid=N: its sand grid's side) and shows its code and the link
// to share in #share. The page's #mode link switches between playing and
// watching the same room.
package main

import (
	"net/url"
	"sync"
	"sync/atomic"
	"syscall/js"
	"time"

	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/transport/webrtc"
	"github.com/rewindnet/rewind/view/tab"
)

// joinTimeout bounds hosting a room (the relay's answer); claimTimeout
// bounds a host migration's claims.
const (
	joinTimeout  = 30 * time.Second
	claimTimeout = 30 * time.Second
)

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
	d := doc.Get("documentElement").Get("dataset") // the page's settings: the <html> element's data attributes
	data := map[string]string{}
	for _, k := range []string{"relay", "room", "game", "grid", "tickRate"} {
		if v := d.Get(k); v.Type() == js.TypeString {
			data[k] = v.String()
		}
	}
	search := js.Global().Get("location").Get("search").String()
	cfg, err := tab.ParseConfig(data, search)
	q, _ := url.ParseQuery(search)
	modeLink(doc, cfg.Room, q.Get("relay"), cfg.Watch)
	if err != nil {
		return // the Worker parses the same settings and says failed in #status
	}
	pg := &page{worker: js.Global().Get("rewindWorker"), cfg: cfg, players: map[int]*roomclient.RoomPlayer{},
		wake: make(chan struct{}, 1)}
	pg.relays = []string{cfg.Relay}
	js.Global().Call("rewindSetWake", js.FuncOf(func(js.Value, []js.Value) any {
		select {
		case pg.wake <- struct{}{}:
		default:
		}
		return nil
	}))
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
	if cfg.Game == "ships" {
		pg.scr = newShipsScreen(pg.ctl)
	} else {
		pg.scr = newScreen(cfg.Side, pg.ctl)
	}
	pg.animate()
	// The canvas draws from the first animation frame (a 2-D canvas:
	// nothing to set up). page.js joined the room (or failed to: a
	// joinfailed message) before this program started; the Worker
	// verifies ticks without it.
	if cfg.Host {
		if code, err := pg.host(); err != nil {
			msg := "cannot host a room: " + err.Error()
			pg.waiting.Store(&msg)
			js.Global().Get("console").Call("error", "rewind: "+msg)
		} else {
			modeLink(doc, code, q.Get("relay"), false)
		}
	}
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

// page is the page's side of the tab: the relay connections of the
// channels it handed to the Worker, and the newest frame.
type page struct {
	worker js.Value
	cfg    tab.Config
	wake   chan struct{}

	mu      sync.Mutex
	players map[int]*roomclient.RoomPlayer // by channel id
	relays  []string                       // the relay that last answered first
	rooms   []*roomclient.HostedRoom       // the rooms this tab hosts (host.go)

	buf  []byte
	cur  tab.Frame
	have bool

	waiting atomic.Pointer[string] // what the canvas says before the first frame
	ctl     *controls
	scr     drawer
	input   int // the last controls posted to the Worker, packed
	posted  bool
	redraw  js.Func
}

// post posts the Worker a message of kind t with key, value pairs.
func (pg *page) post(t string, kv ...any) {
	m := js.Global().Get("Object").New()
	m.Set("t", t)
	for i := 0; i+1 < len(kv); i += 2 {
		m.Set(kv[i].(string), kv[i+1])
	}
	pg.worker.Call("postMessage", m)
}

// webrtcConfig is a claim's transport configuration: its data channel
// goes to the Worker as soon as it is created (rewindHandover), and *id
// gets the channel's id.
func (pg *page) webrtcConfig(id *int) webrtc.Config {
	return webrtc.Config{Handover: func(ch any) (webrtc.Handed, error) {
		var (
			h   webrtc.Handed
			err error
		)
		*id, h, err = handOver(ch)
		return h, err
	}}
}

// took keeps p, the relay connection of channel id, and tells the
// Worker when the relay says its host is lost.
func (pg *page) took(id int, p *roomclient.RoomPlayer) {
	pg.mu.Lock()
	pg.players[id] = p
	pg.mu.Unlock()
	go func() {
		select {
		case <-p.HostLost():
			pg.post(tab.MsgLost, "id", id)
		case <-p.Done():
		}
	}()
}

// fromWorker takes the messages page.js leaves for Go: the Worker's
// claims and leaves, and page.js's joinfailed (its join failed: the
// canvas says why).
func (pg *page) fromWorker() {
	for range pg.wake {
		q := js.Global().Get("rewindFromWorker")
		for q.Length() > 0 {
			m := q.Call("shift")
			switch m.Get("t").String() {
			case "joinfailed":
				msg := "cannot join room " + m.Get("room").String() + ": " + m.Get("err").String()
				pg.waiting.Store(&msg)
			case tab.MsgClaim:
				go pg.claim(m.Get("n").Int(), m.Get("code").String(), m.Get("key").String())
			case tab.MsgLeave:
				id := m.Get("id").Int()
				pg.mu.Lock()
				p := pg.players[id]
				delete(pg.players, id)
				pg.mu.Unlock()
				if p != nil {
					go p.Close()
				}
			}
		}
	}
}
