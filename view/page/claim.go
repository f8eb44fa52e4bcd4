//go:build js && wasm

package main

import (
	"context"
	"errors"
	"slices"
	"time"

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
// come: hostConfig), or why not.
func (pg *page) claim(n int, code, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
	defer cancel()
	pause := 100 * time.Millisecond
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
			pg.hosting(c.Host)
			pg.post(tab.MsgClaimed, "n", n, "host", true)
			return
		}
		if err == nil {
			pg.answered(c.Player.URL())
			pg.took(id, c.Player)
			pg.post(tab.MsgClaimed, "n", n, "id", id)
			return
		}
		if errors.Is(err, roomproto.ErrRoomEnded) || errors.Is(err, roomproto.ErrBadKey) || ctx.Err() != nil {
			pg.post(tab.MsgClaimFailed, "n", n, "err", err.Error())
			return
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			pg.post(tab.MsgClaimFailed, "n", n, "err", err.Error())
			return
		case <-t.C:
		}
		pause = min(2*pause, time.Second)
	}
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
