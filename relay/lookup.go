package relay

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// A lookup ("lookup" with a code, protocol version 2) asks whether a room
// exists without joining it: the page's join-by-code field asks as a
// person types. It is answered "found" (the code, nothing of the room) or
// no_room, and it is decided as a join is (hub_dir.go's three steps), so
// that it is no faster an oracle for guessing codes than joining: it
// passes the same throttles before the directory is asked (the address's
// failed joins, the relay's or fleet's budget, the fleet's throttle in
// Redis), and a lookup that finds no room is counted as a failed join
// (joinFailed: per address and in the budget). A found room costs what a
// successful join costs (nothing), and its host is not told. A lookup of
// a code whose length is not the relay's CodeLength (a person pausing
// mid-code: the page looks up what was typed) is answered bad_code at
// once, alike for every such code, and counts nowhere (issue 43 item 6:
// before, the page's lookup of a 6-character prefix was a failed join,
// and under a guessing attack the whole code was then refused
// rate_limited); a room of another length is found by joining it.

// lookup answers m, a lookup, on the directory's answer d: found where a
// join would be admitted or refused for the room's state (full, busy,
// closed, moving to a new host: the room exists), forwarded (a room of
// another relay of the fleet), no_room (counted) where a join would be
// told no_room or room_ended. h.mu is held.
func (h *roomHub) lookup(c *roomConn, m *roomproto.Msg, d dirAnswer, now time.Time) {
	r := h.rooms[m.Code]
	noRoom := func(counted bool) {
		if counted {
			h.joinFailed(c, now)
		}
		h.fail(c, m.Type, fmt.Errorf("%w: %.12q", roomproto.ErrNoRoom, m.Code))
	}
	switch {
	case d.err != nil && r == nil:
		h.unavailable(c, m, d.err, now) // counted, as a join's
	case d.ok && d.rec.Ended:
		noRoom(true) // a join is told room_ended, and counted
	case d.ok && r == nil && d.ownerDead:
		noRoom(false) // a real code whose relay is gone: a join's is not counted
	case d.ok && r == nil && h.fleet.remoteOwner(d.rec):
		h.found(c, m) // live at another relay of the fleet
	case r == nil || (!d.ok && d.err == nil):
		noRoom(true)
	default:
		h.found(c, m)
	}
}

// found answers a lookup whose room exists: its code, nothing more.
func (h *roomHub) found(c *roomConn, m *roomproto.Msg) {
	h.stats.lookupsFound++
	h.send(c, &roomproto.Msg{Type: roomproto.MsgFound, Code: m.Code})
}
