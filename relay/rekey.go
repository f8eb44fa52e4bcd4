package relay

import (
	"crypto/subtle"
	"fmt"
	"slices"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// Room keys that leave with the player (issue 43). The room key is what
// claims and ends a room; every player of a migrating room holds it (in
// the match's handover data). So that a player who left, or whom the
// operator removed, cannot end, claim or reclaim the room with what it
// knew, the host rotates the key when a player leaves: it sends "rekey"
// with a fresh key on its own relay connection (which only the host
// holds), the relay answers "rekeyed", and only then does the host hand
// the new key to the players who are still in the match.
//
// Between the relay's rekey and the players' new handover data lies a
// round trip: a host lost then leaves players that hold the previous
// key. So a claim with the previous key is taken while the room is
// orphaned and its host was last heard (its last pong before it was
// lost) within RekeyGrace of the rekey (and the room goes back to that
// key: its players may never have had the new one). An end always needs
// the current key.
//
// A new host must serve: once it was introduced a claimant, one of them
// must report its data channel open within ServeTimeout, or the host
// loses the room (host_gone), its address is barred from hosting this
// room again, and the room is orphaned for the next claimant.

// rekey takes a host's new key for its room.
func (h *roomHub) rekey(c *roomConn, m *roomproto.Msg, now time.Time) {
	r := c.room
	if c.role != roleHost || r == nil || r.code != m.Code {
		h.fail(c, m.Type, fmt.Errorf("%w: only a room's host rekeys it", roomproto.ErrBadMessage))
		return
	}
	if m.Key != r.key {
		r.prevKey, r.rekeyedAt, r.key = r.key, now, m.Key
		h.rekeyDirLater(r)
		r.admin.rekeys++
	}
	h.cfg.Log.Debug("relay: room rekeyed", "room", r.code, "rekeys", r.admin.rekeys)
	h.send(c, &roomproto.Msg{Type: roomproto.MsgRekeyed, Code: r.code, Key: r.key})
}

// rekeyDirLater writes r's key to the directory once the lock is
// released (a directory that keeps keys: roomdir.Rekeyer), so that an
// end checked there needs the new key.
func (h *roomHub) rekeyDirLater(r *room) {
	rk, ok := h.cfg.Directory.(roomdir.Rekeyer)
	if !ok {
		return
	}
	code, key := r.code, r.key
	h.later(func() { rk.Rekey(code, key) })
}

// keyFits reports whether key claims r: its current key, or (see above)
// its previous one while r is orphaned and its host was last heard
// within RekeyGrace of the rekey; the room then goes back to the
// previous key.
func (h *roomHub) keyFits(r *room, key string) bool {
	if subtle.ConstantTimeCompare([]byte(key), []byte(r.key)) == 1 {
		return true
	}
	if r.prevKey == "" || !r.orphaned || r.heardAt.Sub(r.rekeyedAt) >= h.cfg.RekeyGrace ||
		subtle.ConstantTimeCompare([]byte(key), []byte(r.prevKey)) != 1 {
		return false
	}
	h.cfg.Log.Debug("relay: claim with the key before the last rekey, host lost within the grace", "room", r.code)
	r.key, r.prevKey = r.prevKey, ""
	h.rekeyDirLater(r)
	return true
}

// awaitServe starts a new host's duty to serve when r's first claimant
// since the takeover is introduced to it.
func (h *roomHub) awaitServe(r *room, now time.Time, claim string) {
	if claim == roomproto.ClaimNew && !r.takenAt.IsZero() && !r.served && r.serveBy.IsZero() {
		r.serveBy = now.Add(h.cfg.ServeTimeout)
	}
}

// serveOverdue takes r from a host that took it over and served none of
// the claimants it was introduced within ServeTimeout: the host is told
// it lost the room (host_gone) and closed, its address barred from
// hosting r, and r orphaned for the next claimant. It reports whether it
// did.
func (h *roomHub) serveOverdue(r *room, now time.Time) bool {
	if r.served || r.serveBy.IsZero() || r.host == nil || now.Before(r.serveBy) {
		return false
	}
	old := r.host
	h.cfg.Log.Debug("relay: a new host served none of its claimants: the room goes to the next", "room", r.code, "conn", old.id)
	r.barred = append(r.barred, old.addr)
	r.serveBy = time.Time{}
	r.admin.unserved++
	h.detachHost(r)
	h.send(old, ptr(roomproto.ErrorMsg(roomproto.ErrCodeHostGone, roomproto.MsgPing, "served none of its players: "+roomproto.ErrHostGone.Error())))
	h.kill(old, websocket.StatusPolicyViolation, "new host served none of its players")
	h.orphan(r, now)
	return true
}

// isBarred reports whether c's address took r over before and served no
// one: it does not host r again (it may join it as a player).
func (r *room) isBarred(c *roomConn) bool {
	return slices.Contains(r.barred, c.addr)
}
