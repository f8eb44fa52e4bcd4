//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"syscall/js"

	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/webrtc"
	"github.com/rewindnet/rewind/view/tab"
)

// hostMaxPlayers caps a room a tab hosts at the relay (the match's
// server default).
const hostMaxPlayers = 16

// handOver gives the data channel ch, just created (a browser's
// RTCDataChannel as a js.Value), to the Worker (page.js's rewindHandover)
// and returns its id there and its state.
func handOver(ch any) (int, webrtc.Handed, error) {
	dc, ok := ch.(js.Value)
	if !ok {
		return 0, webrtc.Handed{}, errors.New("not a browser's data channel")
	}
	open, closed := make(chan struct{}), make(chan struct{})
	var o, c sync.Once
	opened := js.FuncOf(func(js.Value, []js.Value) any { o.Do(func() { close(open) }); return nil })
	gone := js.FuncOf(func(js.Value, []js.Value) any { c.Do(func() { close(closed) }); return nil })
	id := js.Global().Call("rewindHandover", dc, opened, gone).Int()
	return id, webrtc.Handed{Open: open, Closed: closed}, nil
}

// hostConfig is the WebRTC configuration of a room this tab hosts: each
// player's data channel goes to the Worker as it is announced, and the
// Worker is told whose it is (tab.MsgPeer).
func (pg *page) hostConfig() webrtc.Config {
	return webrtc.Config{HostHandover: func(peer transport.Addr, ch any) (webrtc.Handed, error) {
		id, h, err := handOver(ch)
		if err != nil {
			return h, err
		}
		pg.post(tab.MsgPeer, "id", id, "peer", string(peer))
		return h, nil
	}}
}

// host registers a new room with the relay (the match outlives this tab:
// migrate) and tells the Worker its code and key (tab.MsgHosted), or
// why not; the page shows the code and the link to share.
func (pg *page) host() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
	defer cancel()
	room, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: pg.cfg.Relay, MaxPlayers: hostMaxPlayers,
		Migrate: true, WebRTC: pg.hostConfig()})
	if err != nil {
		pg.post(tab.MsgHosted, "err", err.Error())
		return "", err
	}
	tab.Mark("joined")
	pg.hosting(room)
	pg.post(tab.MsgHosted, "code", room.Code(), "key", room.Key())
	return room.Code(), nil
}

// hosting keeps room, a room this tab hosts (registered, or taken over
// in a migration), and shows its code and link to share.
func (pg *page) hosting(room *roomclient.HostedRoom) {
	pg.mu.Lock()
	pg.rooms = append(pg.rooms, room)
	pg.mu.Unlock()
	doc := js.Global().Get("document")
	q := url.Values{"room": {room.Code()}, "game": {pg.cfg.Game}}
	if pg.cfg.Relay != "" {
		q.Set("relay", room.URL())
	}
	loc := js.Global().Get("location")
	link := loc.Get("origin").String() + loc.Get("pathname").String() + "?" + q.Encode()
	if el := doc.Call("getElementById", "share"); !el.IsNull() {
		el.Set("innerHTML", "")
		code := doc.Call("createElement", "div")
		code.Set("id", "code")
		code.Set("textContent", room.Code())
		a := doc.Call("createElement", "a")
		a.Set("href", link)
		a.Set("textContent", link)
		el.Call("append", code, a)
	}
	doc.Set("title", "rewind: hosting room "+room.Code())
	go func() {
		<-room.Done()
		pg.lostRoom(room)
	}()
}

// lostRoom: the relay connection of room, which this tab hosts, ended:
// the relay dropped a host that left its pings unanswered for 3 s (a tab
// the browser froze, a machine asleep), or the connection broke. Either
// way the relay orphaned the room and told its players, who claim it.
// The tab claims it too, with its key: if no one took it over, the tab
// hosts it again (its match goes on, and its players come back to it);
// if a player did, the tab hosts no more: its Worker's seat closes
// (tab.MsgUnhosted) and it joins the match as a new player over the
// channel its claim opened to the new host (tab.MsgJoined).
func (pg *page) lostRoom(room *roomclient.HostedRoom) {
	console := js.Global().Get("console")
	console.Call("warn", "rewind: the relay connection of room "+room.Code()+" ended ("+fmt.Sprint(room.Err())+"): claiming it")
	ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
	defer cancel()
	c, id, err := pg.claimRoom(ctx, room.Code(), room.Key())
	switch {
	case err != nil:
		console.Call("warn", "rewind: claiming room "+room.Code()+": "+err.Error()+": players in the match play on, new ones cannot join by code")
	case c.Host != nil:
		pg.hosting(c.Host)
	default:
		console.Call("warn", "rewind: another player hosts room "+room.Code()+" now: joining it as a player")
		pg.post(tab.MsgUnhosted, "code", room.Code())
		pg.took(id, c.Player)
		pg.post(tab.MsgJoined, "id", id)
	}
}
