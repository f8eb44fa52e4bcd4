package relay

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// A match server that lost its relay connection (the relay died, or the
// connection dropped) connects again, to the same relay or to another of
// the fleet, registers ("serve") and claims each of its rooms back with
// its code and key: a "claim" on a match server's connection. The
// directory decides as for a player's claim (migrate.go, with the
// fleet's adoption of a dead relay's rooms, fleet.go):
//
//	code ended (End) within EndedRemember       -> room_ended (final)
//	another key than the room's                 -> bad_key (final)
//	live at another relay that is alive         -> room_busy (try again: that
//	                                               relay has not yet let it go)
//	owned by a dead relay                       -> adopted here (compare-and-set
//	                                               of the owner), then hosted
//	hosted by another connection here           -> room_busy (the old connection
//	                                               is not yet found gone)
//	forgotten by the directory (TTL ran out)    -> recorded again, then hosted
//	otherwise                                   -> hosted: "hosted" with
//	                                               "claim":"host", code, key
//
// A claim counts against the server's slots (full when none is free) and,
// like "host", not against its message rate while a slot is free.

// serverClaim decides match server c's claim m of one of its rooms, on
// the directory's answer d. h.mu is held.
func (h *roomHub) serverClaim(c *roomConn, m *roomproto.Msg, d dirAnswer, now time.Time) {
	rec, ok := d.rec, d.ok
	r := h.rooms[m.Code]
	busy := func(why string) {
		h.abandon(d)
		h.fail(c, m.Type, fmt.Errorf("%w: %s: %s", roomproto.ErrRoomBusy, m.Code, why))
	}
	switch {
	case d.err != nil:
		busy(d.err.Error())
	case !ok:
		busy("the directory has no record of it (expired meanwhile)")
	case ok && rec.Ended:
		h.fail(c, m.Type, fmt.Errorf("%w: %s", roomproto.ErrRoomEnded, m.Code))
	case ok && rec.Key != m.Key:
		h.joinFailed(c, now)
		h.fail(c, m.Type, fmt.Errorf("%w: room %s is another match", roomproto.ErrBadKey, m.Code))
	case ok && r == nil && (d.ownerDead || h.fleet.remoteOwner(rec)):
		busy("another relay of the fleet holds it still")
	case r != nil && r.host == c:
		h.sendReclaimed(c, r, now) // claimed twice: the same answer
	case r != nil:
		busy("another connection holds it still")
	case c.srv.free() <= 0:
		h.abandon(d)
		h.fail(c, m.Type, fmt.Errorf("%w: all %d slots of this connection are in use", roomproto.ErrFull, c.srv.slots))
	default:
		maxPlayers := m.MaxPlayers
		if maxPlayers <= 0 {
			maxPlayers = c.srv.maxPlayers
		}
		rec.Code, rec.Key = m.Code, m.Key
		h.cfg.Log.Debug("relay: match server claimed its room back", "room", m.Code, "conn", c.id, "owner", rec.Owner)
		r := h.newRoom(rec, c, maxPlayers, now)
		h.countRoom(r, c) // caps.go
		h.sendReclaimed(c, r, now)
	}
}

// sendReclaimed tells match server c it hosts r again.
func (h *roomHub) sendReclaimed(c *roomConn, r *room, now time.Time) {
	h.send(c, &roomproto.Msg{Type: roomproto.MsgHosted, V: roomproto.Version, Code: r.code, Key: r.key,
		MaxPlayers: r.maxPlayers, ICE: h.ice(r.code+"-host", now), Claim: roomproto.ClaimHost})
}

// serverReclaims reports whether match server c may claim a room back
// (m, a "claim"): it needs a free slot; if not, c is told.
func (h *roomHub) serverReclaims(c *roomConn, m *roomproto.Msg) bool {
	if c.srv.free() <= 0 {
		h.fail(c, m.Type, fmt.Errorf("%w: all %d slots of this connection are in use", roomproto.ErrFull, c.srv.slots))
		return false
	}
	return true
}
