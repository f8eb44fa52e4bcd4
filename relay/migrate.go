package relay

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// Host migration at the relay. A room hosted with "migrate" outlives its
// host: when the host's relay connection closes, or it leaves pings
// unanswered for HostTimeout, the room is orphaned (code and key kept for
// OrphanWindow) and its players are told (host_lost). Each player then
// claims the room with its code and key, and the relay decides, case by
// case:
//
//	code ended on purpose (End) within EndedRemember  -> room_ended
//	another key than the room's                       -> bad_key (another match)
//	live at another relay of the fleet (Redis)        -> the claim goes there
//	                                                     (fleet.go); if that
//	                                                     relay is dead, this one
//	                                                     adopts the room, and:
//	no live room here (orphaned, or none at all)      -> the claimant hosts it
//	taken over less than TakeoverWindow ago           -> introduced to the new host
//	a host that still holds its relay connection      -> probe it (a ping), then:
//	    answered within ProbeTimeout  -> every claimant back to the same host
//	    silent                        -> the old host is told it lost the room
//	                                     (host_gone, closed); the claimants in
//	                                     arrival order: the first hosts, the
//	                                     others are introduced to it
//
// A claimant that cannot host ("noHost": a browser tab) is never made the
// host: where it would be, it waits (as long as the room is orphaned)
// for a claimant that can, and is introduced to it.
//
// Only the host's explicit end marks a room ended; a vanished host never
// does.

// orphan makes r wait for a claimant: its players are told the host is
// lost and leave the room (they come back with a claim).
func (h *roomHub) orphan(r *room, now time.Time) {
	h.cfg.Log.Debug("relay: room orphaned", "room", r.code, "players", len(r.players), "claims", len(r.claims))
	r.orphaned, r.orphanedAt, r.heardAt = true, now, r.lastPong
	msg := &roomproto.Msg{Type: roomproto.MsgHostLost, Code: r.code}
	for _, p := range r.players {
		if !p.connected {
			h.pendingDone(p)
		}
		h.send(p, msg)
		p.room, p.role, p.pid, p.connected = nil, roleNone, "", false
	}
	clear(r.players)
	r.joining = 0
	// Claimants waiting on a probe of the host that just went: the first
	// of them takes over at once.
	if len(r.claims) > 0 {
		h.replayClaims(r, now)
	}
}

// claim handles a player's claim of a room whose host it lost.
func (h *roomHub) claim(c *roomConn, m *roomproto.Msg, d dirAnswer, now time.Time) {
	if c.role == roleServer {
		h.serverClaim(c, m, d, now) // a match server's room back (serve_claim.go)
		return
	}
	c.noHost = m.NoHost
	rec, ok := d.rec, d.ok
	r := h.rooms[m.Code]
	log := func(decision string) {
		h.cfg.Log.Debug("relay: claim", "room", m.Code, "conn", c.id, "no_host", c.noHost, "decision", decision)
	}
	switch {
	case r != nil && !h.keyFits(r, m.Key):
		// A room of this relay is claimed with another key (perhaps
		// while the directory forgot it: the claim recorded the
		// claimant's key).
		log("bad_key")
		h.abandon(d)
		h.joinFailed(c, now)
		h.fail(c, m.Type, fmt.Errorf("%w: room %s is another match", roomproto.ErrBadKey, m.Code))
	case d.err != nil && r == nil && errors.Is(d.err, roomproto.ErrUnavailable):
		log("unavailable")
		h.unavailable(c, m, d.err, now)
	case d.err != nil && r == nil:
		log("no_live_room")
		h.fail(c, m.Type, d.err)
	case ok && rec.Ended:
		log("ended")
		h.joinFailed(c, now)
		h.fail(c, m.Type, fmt.Errorf("%w: %s", roomproto.ErrRoomEnded, m.Code))
	case ok && r == nil && rec.Key != m.Key:
		log("bad_key")
		h.joinFailed(c, now)
		h.fail(c, m.Type, fmt.Errorf("%w: room %s is another match", roomproto.ErrBadKey, m.Code))
	case ok && r == nil && d.ownerDead:
		log("owner_dead")
		h.fail(c, m.Type, fmt.Errorf("%w: %.6q: its relay is gone", roomproto.ErrNoRoom, m.Code))
	case ok && r == nil && h.fleet.remoteOwner(rec):
		// Hosted by another live relay of the fleet: the claim is
		// decided there, like a join (fleet.go).
		log("forward")
		h.fleet.forward(c, rec.Owner, m)
	case r == nil:
		log("no_live_room")
		maxPlayers := h.cfg.MaxPlayers
		if m.MaxPlayers > 0 && m.MaxPlayers < maxPlayers {
			maxPlayers = m.MaxPlayers
		}
		r = &room{code: m.Code, key: m.Key, players: make(map[string]*roomConn),
			maxPlayers: maxPlayers, migrate: true, lastPong: now, lastPing: now,
			orphaned: true, orphanedAt: now}
		r.admin.born = now
		h.rooms[r.code] = r
		h.claimOrphan(r, c, now)
	case r.orphaned:
		log("orphaned")
		h.claimOrphan(r, c, now)
	case !r.takenAt.IsZero() && now.Sub(r.takenAt) < h.cfg.TakeoverWindow:
		log("just_taken_over")
		h.admit(r, c, now, roomproto.ClaimNew)
	default:
		log("probe_host")
		c.role, c.room = roleClaimant, r
		r.claims = append(r.claims, c)
		if len(r.claims) == 1 {
			r.pingN++
			r.probeN, r.probeAt, r.lastPing = r.pingN, now, now
			h.send(r.host, &roomproto.Msg{Type: roomproto.MsgPing, N: r.probeN})
		}
	}
}

// claimOrphan hands orphaned r to claimant c, or, if c cannot host, has
// it wait for a claimant that can.
func (h *roomHub) claimOrphan(r *room, c *roomConn, now time.Time) {
	if c.noHost || r.isBarred(c) {
		c.role, c.room = roleClaimant, r
		r.claims = append(r.claims, c)
		return
	}
	h.takeOver(r, c, now)
}

// takeOver makes claimant c the host of r; claimants that were waiting
// for a host (they cannot host) are introduced to it.
func (h *roomHub) takeOver(r *room, c *roomConn, now time.Time) {
	h.cfg.Log.Debug("relay: room taken over", "room", r.code, "conn", c.id, "waiting", len(r.claims))
	r.orphaned, r.takenAt = false, now
	r.served, r.serveBy = false, time.Time{}
	r.admin.migrations++
	r.host, r.lastPong, r.lastPing = c, now, now
	c.role, c.room = roleHost, r
	h.send(c, &roomproto.Msg{Type: roomproto.MsgHosted, V: roomproto.Version, Code: r.code, Key: r.key,
		MaxPlayers: r.maxPlayers, ICE: h.ice(r.code+"-host", now), Claim: roomproto.ClaimHost})
	waiting := r.claims
	r.claims = nil
	for _, w := range waiting {
		w.role, w.room = roleNone, nil
		h.admit(r, w, now, roomproto.ClaimNew)
	}
}

// probeAnswered sends the waiting claimants back to the host that
// answered ping n, if it is the probe's (or a later one).
func (h *roomHub) probeAnswered(r *room, n uint64, now time.Time) {
	if len(r.claims) == 0 || n < r.probeN {
		return
	}
	claims := r.claims
	r.claims = nil
	h.cfg.Log.Debug("relay: probe answered: claimants back to the same host", "room", r.code, "claims", len(claims))
	for _, c := range claims {
		c.role, c.room = roleNone, nil
		h.admit(r, c, now, roomproto.ClaimSame)
	}
}

// replayClaims hands an orphaned room to its waiting claimants in arrival
// order: the first that can host hosts it, the others are introduced to
// it (with none that can host, they all wait).
func (h *roomHub) replayClaims(r *room, now time.Time) {
	for i, c := range r.claims {
		if !c.noHost && !r.isBarred(c) {
			r.claims = append(r.claims[:i:i], r.claims[i+1:]...)
			c.role, c.room = roleNone, nil
			h.takeOver(r, c, now)
			return
		}
	}
}

// migrationTick runs r's migration timers at now: a probe left
// unanswered for ProbeTimeout takes the room from its host; an orphaned
// room no one claimed in OrphanWindow is forgotten. It reports whether r
// has no host to ping (orphaned or gone).
func (h *roomHub) migrationTick(r *room, now time.Time) bool {
	if h.serveOverdue(r, now) { // rekey.go
		return true
	}
	if len(r.claims) > 0 && r.host != nil && now.Sub(r.probeAt) >= h.cfg.ProbeTimeout {
		h.cfg.Log.Debug("relay: probe unanswered: the host loses the room", "room", r.code, "claims", len(r.claims))
		old := r.host
		r.host = nil
		old.room, old.role = nil, roleNone
		h.send(old, ptr(roomproto.ErrorMsg(roomproto.ErrCodeHostGone, roomproto.MsgPing, "another player hosts the match now: "+roomproto.ErrHostGone.Error())))
		h.kill(old, websocket.StatusPolicyViolation, "host did not answer the probe of a claim")
		// Its players (if any are still here) claim too.
		h.orphan(r, now)
		return true
	}
	if r.orphaned && now.Sub(r.orphanedAt) >= h.cfg.OrphanWindow {
		h.removeLater(r.code)
		h.closeRoom(r, "host gone: no player took the match over")
		return true
	}
	return r.orphaned
}

// dropClaim forgets a claimant whose connection closed.
func (r *room) dropClaim(c *roomConn) {
	r.claims = slices.DeleteFunc(r.claims, func(x *roomConn) bool { return x == c })
}
