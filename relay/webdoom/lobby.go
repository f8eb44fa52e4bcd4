package webdoom

import (
	"time"

	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// The lobby: /ws/lobby. With no game running a socket takes the lowest free
// seat (its slot and color); while a game runs a new socket only observes
// (inprogress) until it asks to join.

// OpenLobby reports a new /ws/lobby socket.
func (c *Core) OpenLobby(id ConnID, now time.Time) []Action {
	c.out = c.out[:0]
	c.now = now
	cn := c.open(id, wdLobby)
	if cn == nil {
		return c.out
	}
	if c.session != nil {
		c.sendJSON(id, c.inProgress())
		return c.out
	}
	slot := 0
	for slot < wire.Slots && c.seats[slot] != nil {
		slot++
	}
	if slot == wire.Slots {
		c.sendJSON(id, &wire.Full{Reason: wire.ReasonLobbyFull})
		c.refuse(id, cn, RefuseLobbyFull)
		return c.out
	}
	cn.seat = slot
	c.seats[slot] = &webDoomSeat{conn: id, heard: now}
	c.sendJSON(id, &wire.Welcome{Slot: slot})
	c.castRoster()
	c.log.Info("webdoom: lobby seat taken", "conn", id, "slot", slot, "color", wire.Color(slot))
	return c.out
}

// LobbyMessage reports a message (text or binary) on a /ws/lobby socket.
func (c *Core) LobbyMessage(id ConnID, msg []byte, now time.Time) []Action {
	c.out = c.out[:0]
	c.now = now
	cn := c.incoming(id, wdLobby, now)
	if cn == nil {
		return c.out
	}
	m, err := wire.ParseLobbyRequest(msg)
	if err != nil {
		return c.out // JSON that does not parse is ignored
	}
	if cn.seat >= 0 && c.seats[cn.seat] != nil {
		c.seats[cn.seat].heard = now
	}
	if m.Type == wire.TypePing {
		c.sendJSON(id, &wire.Pong{T0: m.T0JSON()})
		return c.out
	}
	if cn.seat < 0 {
		c.observerMessage(id, cn, m, now)
		return c.out
	}
	if c.session != nil {
		return c.out // the lobby is frozen while a game runs
	}
	switch m.Type {
	case wire.TypeName:
		c.seats[cn.seat].name = m.Name()
		c.castRoster()
	case wire.TypeSlot:
		want, ok := m.SlotChoice()
		if ok && c.seats[want] == nil {
			c.seats[want], c.seats[cn.seat] = c.seats[cn.seat], nil
			cn.seat = want
			c.sendJSON(id, &wire.Welcome{Slot: want})
			c.castRoster()
		}
	case wire.TypeParams:
		c.params = m.MergeParams(c.params)
		c.castRoster()
	case wire.TypeStart:
		c.startSession(now)
	}
	return c.out
}

// observerMessage handles a lobby socket that connected while a game ran.
func (c *Core) observerMessage(id ConnID, cn *webDoomConn, m wire.LobbyRequest, now time.Time) {
	s := c.session
	if s == nil {
		c.sendJSON(id, &wire.Full{Reason: wire.ReasonGameOver})
		return
	}
	if m.Type != wire.TypeJoin || cn.reserved >= 0 {
		return
	}
	free := func(p *webDoomPlayer) bool { return !p.ingame && !p.joining && p.conn == 0 }
	var p *webDoomPlayer
	if want := m.JoinSlot(); want >= 0 && free(&s.players[want]) {
		p = &s.players[want]
	} else {
		for i := range s.players {
			if free(&s.players[i]) {
				p = &s.players[i]
				break
			}
		}
	}
	if p == nil {
		c.sendJSON(id, &wire.Full{Reason: wire.ReasonGameFull})
		return
	}
	cn.reserved, cn.session = p.slot, s
	p.joining, p.reservedAt = true, now
	if name := m.Name(); name != "" {
		if s.names == nil {
			s.names = make([]wire.Name, wire.Slots)
		}
		s.names[p.slot] = wire.Name{Name: name, Set: true}
	}
	c.sendJSON(id, &wire.Welcome{Slot: p.slot})
	c.sendJSON(id, &wire.Launch{Params: s.params, Slots: s.slots, Names: s.names, Join: true, Frontier: s.next})
	c.log.Info("webdoom: drop-in reserved", "conn", id, "slot", p.slot, "frontier", s.next)
}

func (c *Core) lobbyClosed(id ConnID, cn *webDoomConn) {
	if cn.seat >= 0 {
		c.seats[cn.seat] = nil
		c.castRoster()
		c.log.Info("webdoom: lobby seat left", "conn", id, "slot", cn.seat)
		return
	}
	if s := c.session; cn.reserved >= 0 && s != nil && cn.session == s {
		if p := &s.players[cn.reserved]; !p.ingame && p.conn == 0 {
			p.joining, p.reservedAt = false, time.Time{}
		}
	}
}

func (c *Core) displayName(slot int) string {
	if n := c.seats[slot].name; n != "" {
		return n
	}
	return wire.Color(slot)
}

// castRoster sends the roster to every lobby seat.
func (c *Core) castRoster() {
	r := wire.Roster{FreeSlots: []int{}, Params: c.params, InGame: c.session != nil}
	for slot, st := range c.seats {
		if st == nil {
			r.FreeSlots = append(r.FreeSlots, slot)
		} else {
			r.Players = append(r.Players, wire.LobbyPlayer{Slot: slot, Name: c.displayName(slot)})
		}
	}
	c.cast(&r)
}

func (c *Core) cast(m wdAppender) {
	var b []byte
	for _, st := range c.seats {
		if st != nil {
			if b == nil {
				b = m.Append(nil)
			}
			c.send(st.conn, SendText, b)
		}
	}
}

// inProgress is what a lobby newcomer sees while a game runs.
func (c *Core) inProgress() *wire.InProgress {
	s := c.session
	m := &wire.InProgress{Params: s.params, Frontier: s.next, Players: []wire.LivePlayer{}, FreeSlots: []int{}}
	for i := range s.players {
		p := &s.players[i]
		if !p.ingame && !p.joining {
			m.FreeSlots = append(m.FreeSlots, p.slot)
			continue
		}
		name := wire.Color(p.slot)
		if s.names != nil && s.names[p.slot].Set {
			name = s.names[p.slot].Name
		}
		m.Players = append(m.Players, wire.LivePlayer{Slot: p.slot, Name: name, Live: p.ingame})
	}
	return m
}

// lobbyDeadline is when the next lobby seat goes idle (Config.LobbyIdle),
// if one can.
func (c *Core) lobbyDeadline() (time.Time, bool) {
	if c.cfg.LobbyIdle <= 0 {
		return time.Time{}, false
	}
	var next time.Time
	for _, st := range c.seats {
		if st == nil {
			continue
		}
		if cn := c.conns[st.conn]; cn == nil || cn.closing {
			continue
		}
		if at := st.heard.Add(c.cfg.LobbyIdle); next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next, !next.IsZero()
}

// lobbyIdle terminates the seated lobby sockets silent for LobbyIdle; the
// seat is free once the socket has closed.
func (c *Core) lobbyIdle(now time.Time) {
	if c.cfg.LobbyIdle <= 0 {
		return
	}
	for _, st := range c.seats {
		if st != nil && now.Sub(st.heard) >= c.cfg.LobbyIdle {
			c.refuse(st.conn, c.conns[st.conn], RefuseLobbyIdle, "silent", now.Sub(st.heard))
		}
	}
}
