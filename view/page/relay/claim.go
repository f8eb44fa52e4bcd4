//go:build js && wasm

package main

import (
	"context"
	"errors"
	"slices"

	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/view/tab"
)

// claim claims the room again for the Worker's session at a host
// migration (the Worker's claim n, with the handover data's code and
// key), as every player does, and tries again, a little later each
// time, until a relay answers with the next host or makes this tab the
// host, the room ended or is another match's, or claimTimeout passes.
// The answer goes to the Worker: the channel to the next host, that this
// tab hosts the room now (its players' channels go to the Worker as they
// come: hostConfig), or why not. A watching tab (?watch) holds no key:
// it joins the room again as a spectator instead (watchAgain).
func (pg *page) claim(n int, code, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
	defer cancel()
	if pg.cfg.Watch {
		pg.watchAgain(ctx, n, code)
		return
	}
	c, id, err := pg.claimRoom(ctx, code, key)
	switch {
	case err != nil:
		pg.post(tab.MsgClaimFailed, "n", n, "err", err.Error())
	case c.Host != nil:
		pg.hosting(c.Host)
		pg.post(tab.MsgClaimed, "n", n, "host", true)
	default:
		pg.took(id, c.Player)
		pg.post(tab.MsgClaimed, "n", n, "id", id)
	}
}

// claimRoom claims room code with its key through the relays, and
// tries again, a little later each time, until a relay answers with the
// room's host (a data channel to it, handed to the Worker as channel
// id) or makes this tab the host, the room ended or is another match's,
// or ctx ends.
func (pg *page) claimRoom(ctx context.Context, code, key string) (*roomclient.Claimed, int, error) {
	var pause roomclient.Backoff
	for {
		pg.mu.Lock()
		urls := slices.Clone(pg.relays)
		pg.mu.Unlock()
		var id int
		wcfg := pg.webrtcConfig(&id)
		wcfg.HostHandover = pg.hostConfig().HostHandover
		c, err := roomclient.ClaimRoom(ctx, roomclient.ClaimOptions{URL: urls[0], URLs: urls[1:], Code: code, Key: key,
			Host: roomclient.HostOptions{MaxPlayers: hostMaxPlayers, WebRTC: wcfg}})
		if err == nil && c.Host != nil {
			pg.answered(c.Host.URL())
			return c, 0, nil
		}
		if err == nil {
			pg.answered(c.Player.URL())
			return c, id, nil
		}
		if errors.Is(err, roomproto.ErrRoomEnded) || errors.Is(err, roomproto.ErrBadKey) || ctx.Err() != nil {
			return nil, 0, err
		}
		if !pause.Wait(ctx) {
			return nil, 0, err
		}
	}
}

// watchAgain follows the match of a watching tab to its next host: a
// spectator holds no key to claim the room with, so it joins the room
// again by its code as a spectator once a player took the match over
// (roomclient.JoinAgain), and the Worker gets the channel to the new
// host (its session goes on from its last verified world), or why not.
func (pg *page) watchAgain(ctx context.Context, n int, code string) {
	pg.mu.Lock()
	urls := slices.Clone(pg.relays)
	pg.mu.Unlock()
	var id int
	p, err := roomclient.JoinAgain(ctx, roomclient.JoinOptions{URL: urls[0], URLs: urls[1:], Code: code,
		WebRTC: pg.webrtcConfig(&id), Spectator: true})
	if err != nil {
		pg.post(tab.MsgClaimFailed, "n", n, "err", err.Error())
		return
	}
	pg.answered(p.URL())
	pg.took(id, p)
	pg.post(tab.MsgClaimed, "n", n, "id", id)
}

// answered puts url first among the relays claims go through.
func (pg *page) answered(url string) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if i := slices.Index(pg.relays, url); i > 0 {
		pg.relays = append(append([]string{url}, pg.relays[:i]...), pg.relays[i+1:]...)
	} else if i < 0 {
		pg.relays = append([]string{url}, pg.relays...)
	}
}
