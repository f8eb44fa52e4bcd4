package relay

import (
	"fmt"
	"strconv"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// Match servers (protocol version 2): one connection hosts many rooms,
// and lobbies ask the relay for rooms that it opens on a match server
// with a free slot. See roomproto/msg.go for the flow, docs/rooms.md for the
// messages.

// roleServer is the role of a match server's connection ("serve").
const roleServer = roleForward + 1

// matchServer is the relay's state of a match server's connection: its
// rooms (each a room whose host is the connection), its slots, and the
// connection's pings, which stand for every room's (a room of it is not
// pinged by itself).
type matchServer struct {
	slots      int
	onDemand   bool
	trusted    bool // proved the relay's server token (auth.go)
	maxPlayers int
	rooms      map[string]*room
	pingN      uint64
	lastPing   time.Time
	lastPong   time.Time
}

// serveCounters counts the rooms lobbies asked for (MatchServerStats).
type serveCounters struct {
	opened, full, forwarded uint64
}

// MatchServerStats is what a relay knows of the match servers connected
// to it (RoomServer.MatchServers).
type MatchServerStats struct {
	// Servers is the match servers connected; OnDemand those of them
	// that take rooms on demand.
	Servers, OnDemand int
	// Slots is the slots of the on-demand servers, Used how many of them
	// hold a room: Slots - Used rooms may still be opened on demand.
	Slots, Used int
	// Opened counts the rooms opened on demand; Full the lobbies' opens
	// refused "full" (no free slot, or the server refused or did not
	// answer); Forwarded the lobbies' opens placed at another relay of
	// the fleet (no server here had a free slot).
	Opened, Full, Forwarded uint64
}

// MatchServers reports the match servers connected to the relay and the
// rooms opened on demand.
func (s *RoomServer) MatchServers() MatchServerStats {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	st := MatchServerStats{Opened: h.serving.opened, Full: h.serving.full, Forwarded: h.serving.forwarded}
	for _, c := range h.conns {
		if c.role != roleServer {
			continue
		}
		st.Servers++
		if c.srv.onDemand {
			st.OnDemand++
			st.Slots += c.srv.slots
			st.Used += len(c.srv.rooms)
		}
	}
	return st
}

// free is how many more rooms the server takes.
func (s *matchServer) free() int { return s.slots - len(s.rooms) }

// serve makes c a match server.
func (h *roomHub) serve(c *roomConn, m *roomproto.Msg, now time.Time) {
	if c.role != roleNone {
		h.fail(c, m.Type, fmt.Errorf("%w: serve from a connection in a room", roomproto.ErrBadMessage))
		return
	}
	trusted := len(h.cfg.ServerToken) > 0
	if trusted && !roomproto.CheckServerProof(h.cfg.ServerToken, c.nonce, m.Auth) {
		h.joinFailed(c, now) // a guess at the token costs as a failed join
		h.fail(c, m.Type, fmt.Errorf("%w (--server-token FILE): no proof, or a wrong one, in serve", roomproto.ErrUnauthorized))
		return
	}
	slots := min(m.Slots, h.cfg.ServerSlots)
	c.role = roleServer
	c.srv = &matchServer{
		slots: slots, onDemand: m.OnDemand, maxPlayers: m.MaxPlayers, trusted: trusted,
		rooms: make(map[string]*room), lastPing: now, lastPong: now,
	}
	h.cfg.Log.Debug("relay: match server", "conn", c.id, "slots", slots, "on_demand", m.OnDemand)
	h.slotsChanged()
	h.send(c, &roomproto.Msg{Type: roomproto.MsgServing, V: roomproto.Version, Slots: slots, OnDemand: m.OnDemand,
		ICE: h.ice("server-"+strconv.FormatUint(c.id, 10), now)}) // one WebRTC host for all its rooms
}

// serverTakes reports whether match server c may host one more room (m,
// a "host"); if not, c is told why.
func (h *roomHub) serverTakes(c *roomConn, m *roomproto.Msg) bool {
	switch {
	case m.Migrate:
		h.fail(c, m.Type, fmt.Errorf("%w: the rooms of a match server do not migrate", roomproto.ErrBadMessage))
		return false
	case c.srv.free() <= 0:
		h.fail(c, m.Type, fmt.Errorf("%w: all %d slots of this connection are in use", roomproto.ErrFull, c.srv.slots))
		return false
	}
	if m.MaxPlayers <= 0 {
		m.MaxPlayers = c.srv.maxPlayers
	}
	return true
}

// hostedRoom returns the room code of host c (a host's one room
// whatever the code, or one of a match server's), or nil.
func (h *roomHub) hostedRoom(c *roomConn, code string) *room {
	switch c.role {
	case roleHost:
		return c.room
	case roleServer:
		return c.srv.rooms[code]
	}
	return nil
}

// freeServerMsg reports whether m, from c, is a match server's message
// that does not count against its rate: a "host" or a "claim" (its room
// back after a reconnection: serve_claim.go) while it has a free
// slot (its slots bound them), an "opened" (it answers the relay's
// "open", which lobbies' rates bound).
func (h *roomHub) freeServerMsg(c *roomConn, m *roomproto.Msg, err error) bool {
	if err != nil || c.role != roleServer {
		return false
	}
	return m.Type == roomproto.MsgOpened || ((m.Type == roomproto.MsgHost || m.Type == roomproto.MsgClaim) && c.srv.free() > 0)
}

// pickServer returns the match server that takes rooms on demand with
// the most free slots (the oldest connection among equals), or nil; and
// how many such servers there are, with their slots and those in use.
func (h *roomHub) pickServer() (s *roomConn, servers, slots, used int) {
	for _, x := range h.conns {
		if x.role != roleServer || !x.srv.onDemand || x.killed || len(h.cfg.ServerToken) > 0 && !x.srv.trusted {
			continue
		}
		servers++
		slots += x.srv.slots
		used += len(x.srv.rooms)
		if x.srv.free() > 0 && (s == nil || x.srv.free() > s.srv.free() || x.srv.free() == s.srv.free() && x.id < s.id) {
			s = x
		}
	}
	return s, servers, slots, used
}

// openPrecheck refuses lobby c's open if it is in a room, or "full" if
// no match server has a free slot, before a code is claimed; false if it
// did. In a fleet of relays (Redis) the fleet's servers are asked next
// (placeOpen), unless c stands in for a lobby of another relay. h.mu is
// held.
func (h *roomHub) openPrecheck(c *roomConn, m *roomproto.Msg) bool {
	if c.role != roleNone {
		h.fail(c, m.Type, fmt.Errorf("%w: open from a connection in a room", roomproto.ErrBadMessage))
		return false
	}
	if s, servers, slots, used := h.pickServer(); s == nil && (h.fleet == nil || c.standIn) {
		h.serving.full++
		h.fail(c, m.Type, fmt.Errorf("%w: %d match server(s) take rooms on demand here, %d of %d slots in use",
			roomproto.ErrFull, servers, used, slots))
		return false
	}
	return true
}

// open opens a room on demand for lobby c, under the code d claimed: on
// the match server with the most free slots among those that registered
// onDemand. The room is live at once; c hears its code when the server
// confirms, or "full" when none can take it, it refuses, or it does not
// answer within OpenTimeout. h.mu is held.
func (h *roomHub) open(c *roomConn, m *roomproto.Msg, d dirAnswer, now time.Time) {
	if d.err != nil {
		h.fail(c, m.Type, d.err)
		return
	}
	if d.sendTo != "" || d.others != nil {
		h.openElsewhere(c, m, d, now) // fleet_open.go
		return
	}
	s, servers, slots, used := h.pickServer() // again: the slots may have gone meanwhile
	if s == nil {
		h.serving.full++
		h.abandon(d)
		h.fail(c, m.Type, fmt.Errorf("%w: %d match server(s) take rooms on demand here, %d of %d slots in use",
			roomproto.ErrFull, servers, used, slots))
		return
	}
	maxPlayers := m.MaxPlayers
	if maxPlayers <= 0 || s.srv.maxPlayers > 0 && s.srv.maxPlayers < maxPlayers {
		maxPlayers = s.srv.maxPlayers
	}
	r := h.newRoom(d.rec, s, maxPlayers, now)
	h.chargeOpen(c, now) // caps.go
	r.onDemand, r.opening, r.opener, r.openedAt = true, true, c, now
	h.cfg.Log.Debug("relay: room opened on demand", "room", r.code, "server", s.id, "free", s.srv.free())
	h.send(s, &roomproto.Msg{Type: roomproto.MsgOpen, Code: r.code, Key: r.key, MaxPlayers: r.maxPlayers,
		ICE: h.ice(r.code+"-host", now)})
}

// opened takes a match server's answer to "open": the lobby gets the
// code, or "full" with the server's reason (and the code is forgotten).
func (h *roomHub) opened(c *roomConn, m *roomproto.Msg, now time.Time) {
	if c.role != roleServer {
		h.fail(c, m.Type, fmt.Errorf("%w: opened from a connection that is no match server", roomproto.ErrBadMessage))
		return
	}
	r := c.srv.rooms[m.Code]
	if r == nil || !r.opening {
		return // it timed out or ended meanwhile (the server was told ended)
	}
	if m.Reason != "" {
		h.removeLater(r.code)
		h.closeRoom(r, "refused: "+m.Reason)
		return
	}
	r.opening = false
	h.serving.opened++
	h.send(r.opener, &roomproto.Msg{Type: roomproto.MsgOpened, V: roomproto.Version, Code: r.code, Key: r.key, MaxPlayers: r.maxPlayers})
	r.opener = nil
}

// serverPong takes a match server's pong n.
func (h *roomHub) serverPong(c *roomConn, n uint64, now time.Time) {
	if n <= c.srv.pingN {
		c.srv.lastPong = now
	}
}

// serverTick pings match server c, or, if it left pings unanswered for
// HostTimeout, takes its rooms away and closes it.
func (h *roomHub) serverTick(c *roomConn, now time.Time) {
	if c.killed {
		return
	}
	if now.Sub(c.srv.lastPong) >= h.cfg.HostTimeout {
		h.serverGone(c, now, "host gone: no answer to ping")
		h.send(c, ptr(roomproto.ErrorMsg(roomproto.ErrCodeHostGone, roomproto.MsgPing, roomproto.ErrHostGone.Error())))
		h.kill(c, websocket.StatusPolicyViolation, "match server did not answer ping")
		return
	}
	if now.Sub(c.srv.lastPing) >= h.cfg.PingInterval {
		c.srv.pingN++
		c.srv.lastPing = now
		h.send(c, &roomproto.Msg{Type: roomproto.MsgPing, N: c.srv.pingN})
	}
}

// serverRoomTick runs the timers of a match server's room r: an open its
// server leaves unconfirmed for OpenTimeout fails; a room opened on
// demand that no player joined within UnusedTimeout ends (so that lobbies
// cannot hold every slot).
func (h *roomHub) serverRoomTick(r *room, now time.Time) {
	switch {
	case r.opening && now.Sub(r.openedAt) >= h.cfg.OpenTimeout:
		h.removeLater(r.code)
		h.closeRoom(r, fmt.Sprintf("no answer within %v", h.cfg.OpenTimeout))
	case r.onDemand && r.nextPlayer == 0 && now.Sub(r.openedAt) >= h.cfg.UnusedTimeout:
		h.endRoom(r, now, fmt.Sprintf("unused: no player joined within %v", h.cfg.UnusedTimeout))
	}
}

// serverGone takes every room of match server c away (its connection
// closed or it stopped answering pings), as for a host that left.
func (h *roomHub) serverGone(c *roomConn, now time.Time, why string) {
	for _, r := range c.srv.rooms {
		h.hostGone(r, now, why)
	}
	h.slotsChanged()
}
