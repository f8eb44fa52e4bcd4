package relay

import (
	"time"

	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// Rooms' lives in the hub: made for a host (or a match server), taken
// from a host that is gone, ended, closed.

// hostGone handles a room whose host left or stopped answering pings. A
// room hosted for migration is orphaned (orphan, migrate.go): its
// players are told and claim it. Any other room is forgotten, and its
// players told it ended: only the host's explicit end makes the relay
// remember a room as ended.
func (h *roomHub) hostGone(r *room, now time.Time, why string) {
	h.cfg.Log.Debug("relay: host gone", "room", r.code, "why", why, "migrate", r.migrate)
	h.detachHost(r)
	if r.migrate {
		h.orphan(r, now)
		return
	}
	h.removeLater(r.code)
	h.closeRoom(r, why)
}

// endRoom ends a live room: the directory remembers it as ended, and every
// member is told.
func (h *roomHub) endRoom(r *room, now time.Time, why string) {
	h.endLater(r.code, now)
	h.closeRoom(r, why)
}

// closeRoom takes a room out of the hub and tells every member (and
// claimant) it ended, for why.
func (h *roomHub) closeRoom(r *room, why string) {
	delete(h.rooms, r.code)
	h.uncountRoom(r) // caps.go
	msg := &roomproto.Msg{Type: roomproto.MsgEnded, Code: r.code, Reason: why}
	for _, p := range r.players {
		if !p.connected {
			h.pendingDone(p)
		}
		h.send(p, msg)
		p.room, p.role, p.pid, p.connected = nil, roleNone, "", false
	}
	r.players = nil
	for _, c := range r.claims {
		h.send(c, msg)
		c.room, c.role = nil, roleNone
	}
	r.claims = nil
	if r.opening { // a room opened on demand that its server did not confirm
		h.serving.full++
		h.send(r.opener, ptr(roomproto.ErrorMsg(roomproto.ErrCodeFull, roomproto.MsgOpen, roomproto.ErrFull.Error()+": the match server did not open the room: "+why)))
		r.opening, r.opener = false, nil
	}
	h.send(r.host, msg)
	h.detachHost(r)
}

// detachHost takes r from its host: a host's connection is in no room
// any more; a match server's loses one of its rooms.
func (h *roomHub) detachHost(r *room) {
	host := r.host
	if host == nil {
		return
	}
	r.host = nil
	if host.role == roleServer {
		delete(host.srv.rooms, r.code)
		h.slotsChanged()
		return
	}
	host.room, host.role = nil, roleNone
}

// newRoom makes the live room of rec, hosted by c (a host, or one room
// among a match server's), capped at maxPlayers if under the relay's cap.
func (h *roomHub) newRoom(rec roomdir.Record, c *roomConn, maxPlayers int, now time.Time) *room {
	if maxPlayers <= 0 || maxPlayers > h.cfg.MaxPlayers {
		maxPlayers = h.cfg.MaxPlayers
	}
	r := &room{
		code: rec.Code, key: rec.Key, host: c,
		players:    make(map[string]*roomConn),
		maxPlayers: maxPlayers,
		lastPong:   now, lastPing: now,
	}
	r.admin.born = now
	h.rooms[r.code] = r
	if c.role == roleServer {
		c.srv.rooms[r.code] = r
		h.slotsChanged()
	} else {
		c.role, c.room = roleHost, r
	}
	return r
}
