//go:build js && wasm

// Command relay is the browser tab's relay program: the page's side of
// what a tab does at the relay beyond the join that boot.js makes. It
// registers the room a tab hosts (?host=1: host.go) and answers its
// players' offers with the page's RTCPeerConnection, each player's data
// channel handed to the match's Worker (view/page/worker), where the
// match's server ticks; it claims the room again for the Worker's session
// at a host migration (claim.go), over the relay's WebSocket with pion
// driving the page's RTCPeerConnection, the channel to the next host (or
// the players' channels, if this tab hosts next) handed to the Worker the
// moment it is made. It links pion's js side and the relay's client,
// which a tab that only joins and draws does not need: page.js starts it
// at once in a tab that hosts, else at the Worker's first claim
// (docs in view/README.md, "The page"), so that the page's drawing
// program (view/page) is small and starts soon after the first verified
// tick.
package main

import (
	"sync"
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

func main() {
	cfg, err := tab.PageConfig()
	if err != nil {
		return // the Worker parses the same settings and says failed in #status
	}
	pg := &page{worker: js.Global().Get("rewindWorker"), cfg: cfg, players: map[int]*roomclient.RoomPlayer{},
		wake: make(chan struct{}, 1)}
	pg.relays = []string{cfg.Relay}
	tab.SetWake("rewindSetRelayWake", pg.wake)
	go pg.fromWorker()
	if cfg.Host {
		if code, err := pg.host(); err != nil {
			msg := "cannot host a room: " + err.Error()
			js.Global().Get("console").Call("error", "rewind: "+msg)
			toPage("say", "text", msg)
		} else {
			toPage("hosting", "code", code)
		}
	}
	select {} // the Worker's claims go on
}

// toPage leaves the page's drawing program (view/page) a message of kind
// t with key, value pairs: say (text: what the canvas says before the
// first frame) or hosting (code: the room this tab hosts).
func toPage(t string, kv ...any) {
	js.Global().Call("rewindToPage", tab.Message(t, kv...))
}

// page is the relay program's state: the relay connections of the
// channels it handed to the Worker, and the rooms this tab hosts.
type page struct {
	worker js.Value
	cfg    tab.Config
	wake   chan struct{}

	mu      sync.Mutex
	players map[int]*roomclient.RoomPlayer // by channel id
	relays  []string                       // the relay that last answered first
	rooms   []*roomclient.HostedRoom       // the rooms this tab hosts (host.go)
}

// post posts the Worker a message of kind t with key, value pairs.
func (pg *page) post(t string, kv ...any) {
	pg.worker.Call("postMessage", tab.Message(t, kv...))
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

// fromWorker takes the Worker's messages boot.js leaves for this
// program (rewindToRelay): its claims, and its leaves of the channels
// this program's claims opened.
func (pg *page) fromWorker() {
	tab.Take(pg.wake, "rewindToRelay", func(m js.Value) {
		switch m.Get("t").String() {
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
	})
}
