package relay

import (
	"strconv"
	"strings"
	"time"

	"github.com/pion/stun/v4"
	"github.com/pion/turn/v5"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// TURN credentials outlive a long match. A credential (the TURN REST-API
// scheme: an expiry and a user in its name) is valid for a new
// allocation until it expires (TURNConfig.CredentialTTL, 6 h by
// default). Two things keep a match going past it:
//
//   - An allocation made in time keeps being refreshed (its permissions
//     and channels too) with the credential it was made with, for as
//     long as the relay that handed it out says the user is a member of
//     a live room: the room's code (user "CODE-host", "CODE-pN") is live
//     there, or the match server ("server-ID") is still connected. Only
//     a request on an existing allocation is taken so (pion answers one
//     without an allocation for its 5-tuple with an error after the
//     check); a new allocation needs an unexpired credential.
//   - A host or a match server, which makes a new PeerConnection (and a
//     new allocation) for every player who joins, is handed fresh
//     credentials at half of CredentialTTL: the relay's "ice" message,
//     which roomclient gives to its WebRTC host for the peers to come
//     (webrtc.Host.SetICEServers). Players are given theirs when they
//     join (or claim), and keep their allocation as above.

// setLive installs the relay's check of a credential's user.
func (t *TURNServer) setLive(f func(user string) bool) { t.live.Store(&f) }

// renews reports whether a request with an expired credential of user
// is to be taken: one on an existing allocation (not an Allocate) of a
// user the relay says is still in a live room.
func (t *TURNServer) renews(ra *turn.RequestAttributes, user string) bool {
	f := t.live.Load()
	if ra.Method == stun.MethodAllocate || f == nil || !(*f)(user) {
		return false
	}
	t.renewed.Add(1)
	return true
}

// Renewed counts the requests on existing allocations (refreshes,
// permissions, channel binds) taken with a credential past its expiry
// because its room still lives.
func (t *TURNServer) Renewed() uint64 { return t.renewed.Load() }

// liveMember reports whether the TURN user a credential was handed to is
// still a member of a live room here: "CODE-…" a live room's, "server-ID"
// a connected match server.
func (h *roomHub) liveMember(user string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id, ok := strings.CutPrefix(user, "server-"); ok {
		n, err := strconv.ParseUint(id, 10, 64)
		c := h.conns[n]
		return err == nil && c != nil && c.role == roleServer && !c.killed
	}
	code, _, ok := strings.Cut(user, "-")
	return ok && h.rooms[code] != nil
}

// renewICE hands every host and match server fresh TURN credentials at
// half of their life. h.mu is held.
func (h *roomHub) renewICE(now time.Time) {
	if h.cfg.TURN == nil {
		return
	}
	every := h.cfg.TURN.cfg.CredentialTTL / 2
	for _, c := range h.conns {
		var user string
		switch {
		case c.killed:
			continue
		case c.role == roleHost && c.room != nil:
			user = c.room.code + "-host"
		case c.role == roleServer:
			user = "server-" + strconv.FormatUint(c.id, 10)
		default:
			continue
		}
		if c.iceAt.IsZero() {
			c.iceAt = now // handed in its hosted or serving, within a tick
			continue
		}
		if now.Sub(c.iceAt) >= every {
			c.iceAt = now
			h.send(c, &roomproto.Msg{Type: roomproto.MsgICE, ICE: h.ice(user, now)})
		}
	}
}
