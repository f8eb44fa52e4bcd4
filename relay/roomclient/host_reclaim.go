package roomclient

import (
	"context"
	"fmt"

	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport"
)

// A room hosted for migration (HostOptions.Migrate) whose relay
// connection ends while its host lives (the relay died, or the network
// between them failed) is registered again by the same host through the
// relays of its fleet: Reclaim claims it with its code and key, as a
// player that lost its host would (relay/migrate.go). The fleet's
// directory makes the relay that takes the claim the room's owner: at
// once if the old relay let the room go, once it is found dead otherwise
// (until then the claim is forwarded to the old relay, and fails when
// that one is found dead: the caller tries again). The relay answers
// "hosted": the host keeps its WebRTC transport and its players (their
// data channels do not pass through the relay), gives the new relay's
// ICE servers to the players who join from now on, and answers the new
// relay's pings and signaling. A room that is not hosted for migration
// is forgotten by the relay with its host's connection: it cannot be
// claimed back this way.

// Reclaim claims the room again through the relays of urls in turn (as
// HostOptions.URLs are tried) and, when one hosts it, makes that
// connection the room's (URL, Done and Err are then its; the players who
// join through it are named "ID@N" on the Conn, N counting the claims
// back, apart from the earlier players the relay numbered too). It fails if no
// relay took the claim (the caller may try again later), with an error
// wrapping roomproto.ErrRoomEnded or roomproto.ErrBadKey if the room
// ended or is another match's, with ErrTakenOver if another claimant
// hosts the room now (its players took the match over), and with
// transport.ErrClosed after Close.
func (h *HostedRoom) Reclaim(ctx context.Context, urls []string) error {
	h.mu.Lock()
	closed, maxPlayers, bound, base, gen, key := h.closed, h.opts.MaxPlayers, h.opts.TryTimeout, h.opts.WebRTC, h.gen+1, h.key
	h.mu.Unlock()
	if closed {
		return transport.ErrClosed
	}
	r, err := reach(ctx, urls, bound, &roomproto.Msg{Type: roomproto.MsgClaim, V: roomproto.V1, Code: h.code, Key: key,
		MaxPlayers: maxPlayers}, "", func(m roomproto.Msg) { h.handleAt(gen, m) })
	if err != nil {
		return fmt.Errorf("relay: claiming %s back: %w", h.code, err)
	}
	if r.first.Type != roomproto.MsgHosted || r.first.Claim != roomproto.ClaimHost {
		r.rc.close()
		if r.first.Type == roomproto.MsgEnded {
			return fmt.Errorf("relay: claiming %s back at %s: %w: %s", h.code, r.url, roomproto.ErrRoomEnded, r.first.Reason)
		}
		return fmt.Errorf("relay: claiming %s back at %s: %w (answered %q, claim %q)", h.code, r.url, ErrTakenOver, r.first.Type, r.first.Claim)
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		r.rc.close()
		return transport.ErrClosed
	}
	old := h.rc
	h.rc, h.opts.URL, h.gen = r.rc, r.url, gen
	h.mu.Unlock()
	old.close()
	h.conn.SetICEServers(webrtcConfig(base, r.url, r.first.ICE).ICEServers)
	r.start() // the new connection's messages go to handle from now on
	return nil
}
