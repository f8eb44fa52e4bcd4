package roomclient

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// ClaimOptions says how to claim a room whose host was lost (host
// migration): the room's code and key, as the old host's handover data
// gave them.
type ClaimOptions struct {
	// URL is the relay's WebSocket URL.
	URL string
	// URLs are more relays of the same fleet, tried in turn after URL as
	// JoinOptions.URLs are (a claimant whose relay died claims through a
	// live one). Default: none.
	URLs []string
	// TryTimeout bounds each try but the last when URLs is set, as
	// JoinOptions.TryTimeout does (default DefaultTryTimeout).
	TryTimeout time.Duration
	// Code and Key are the room's.
	Code, Key string
	// NoHost says the claimant cannot host the match (a browser tab): the
	// relay never makes it the host, and it waits until a claimant that
	// can host takes the room over, or the room goes (ctx bounds the
	// wait).
	NoHost bool
	// Host configures the room if the claimant hosts it (its URL, Code
	// and Migrate are ignored: the room keeps its code and key, and
	// migrates again). Its WebRTC is also the player's transport's
	// configuration if the claimant joins.
	Host HostOptions
}

// Claimed is the relay's answer to a claim. Outcome is roomproto.ClaimHost (the
// claimant hosts the room now: Host), roomproto.ClaimSame (the old host answered
// the relay's probe: Player is connected to it again) or roomproto.ClaimNew
// (another claimant took the room over: Player is connected to it).
type Claimed struct {
	Outcome string
	Host    *HostedRoom
	Player  *RoomPlayer
}

// ClaimRoom claims the room opts.Code with its key and returns once the
// claimant hosts it, or is connected to its host over a data channel.
// The relay's refusals come back as errors wrapping roomproto.ErrRoomEnded (the
// host ended the match on purpose), roomproto.ErrBadKey (another match has the
// code) and the like; a claimant introduced to a host that the relay
// then says is lost too (before the data channel opened) gets
// roomproto.ErrHostGone, and may claim again.
func ClaimRoom(ctx context.Context, opts ClaimOptions) (*Claimed, error) {
	code := strings.ToUpper(strings.TrimSpace(opts.Code))
	var handle func(roomproto.Msg)
	r, err := reach(ctx, relayList(opts.URL, opts.URLs), opts.TryTimeout,
		&roomproto.Msg{Type: roomproto.MsgClaim, V: roomproto.V1, Code: code, Key: opts.Key, MaxPlayers: opts.Host.MaxPlayers, NoHost: opts.NoHost},
		"", func(m roomproto.Msg) { handle(m) })
	if err != nil {
		return nil, fmt.Errorf("relay: claiming %s: %w", code, err)
	}
	rc, m, start, url := r.rc, r.first, r.start, r.url
	if m.Type == roomproto.MsgEnded {
		rc.close()
		return nil, fmt.Errorf("relay: claiming %s at %s: %w: %s", code, url, roomproto.ErrRoomEnded, m.Reason)
	}
	switch {
	case m.Type == roomproto.MsgHosted && m.Claim == roomproto.ClaimHost:
		hopts := opts.Host
		hopts.URL, hopts.URLs, hopts.Code, hopts.Migrate = url, nil, code, true
		h := &HostedRoom{opts: hopts}
		handle = h.handle
		if err := h.start(rc, m, start); err != nil {
			return nil, err
		}
		return &Claimed{Outcome: roomproto.ClaimHost, Host: h}, nil
	case m.Type == roomproto.MsgJoined && (m.Claim == roomproto.ClaimSame || m.Claim == roomproto.ClaimNew):
		p := newRoomPlayer(code)
		handle = p.handle
		if err := p.start(ctx, rc, m, start, JoinOptions{URL: url, Code: code, WebRTC: opts.Host.WebRTC}); err != nil {
			return nil, err
		}
		return &Claimed{Outcome: m.Claim, Player: p}, nil
	}
	rc.close()
	return nil, fmt.Errorf("relay: claiming %s: %w: answered %q (claim %q)", code, roomproto.ErrBadMessage, m.Type, m.Claim)
}
