package webdoom

import (
	"encoding/binary"
	"math"
	"math/bits"
	"time"

	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// webDoomPlayer is one of a session's 4 slots.
type webDoomPlayer struct {
	slot       int
	conn       ConnID // its game socket, 0 for none
	ring       []webDoomCmdEntry
	last       wire.TicCmd // what went into the last bundle
	lastSeen   time.Time   // when a message was last heard
	ingame     bool        // its in-game bit
	joined     bool        // has connected (or was not in the launch roster)
	joining    bool        // a drop-in reserved or catching up
	sentAny    bool        // has sent a cmd
	joinAtSet  bool
	joinAt     uint32 // the tic a drop-in goes live
	reservedAt time.Time
}

type webDoomCmdEntry struct {
	tic uint32
	has bool
	cmd wire.TicCmd
}

func (p *webDoomPlayer) cmd(tic uint32) (wire.TicCmd, bool) {
	e := &p.ring[tic&uint32(len(p.ring)-1)]
	return e.cmd, e.has && e.tic == tic
}

// webDoomSession is one running game.
type webDoomSession struct {
	players       [wire.Slots]webDoomPlayer
	next          uint32 // the next tic to seal
	params        wire.Params
	slots         []int       // the launch roster
	names         []wire.Name // nil until launch
	launched      bool
	launchedAt    time.Time
	countdown     int
	nextCountdown time.Time
	nextSweep     time.Time
	history       History
	historyFull   bool
	spectators    []ConnID
}

func (c *Core) startSession(now time.Time) {
	s := &webDoomSession{params: c.params, slots: []int{}, countdown: c.cfg.CountdownFrom, nextCountdown: now}
	ring := 1 << bits.Len32(c.cfg.CmdWindow) // > CmdWindow: no two kept tics share an entry
	for i := range s.players {
		seated := c.seats[i] != nil
		s.players[i] = webDoomPlayer{slot: i, ring: make([]webDoomCmdEntry, ring), lastSeen: now, ingame: seated, joined: !seated}
		if seated {
			s.slots = append(s.slots, i)
		}
	}
	c.session = s
	c.stats.sessions.Add(1)
	c.log.Info("webdoom: game starting", "slots", s.slots)
	c.countdownStep(now)
}

// countdownStep sends the next countdown number, or launches.
func (c *Core) countdownStep(now time.Time) {
	s := c.session
	if s.countdown > 0 {
		c.cast(&wire.Countdown{N: s.countdown})
		s.countdown--
		s.nextCountdown = s.nextCountdown.Add(c.cfg.Countdown)
		return
	}
	s.names = make([]wire.Name, wire.Slots)
	for i, st := range c.seats {
		if st != nil {
			s.names[i] = wire.Name{Name: c.displayName(i), Set: true}
		}
	}
	c.cast(&wire.Launch{Params: c.params, Slots: s.slots, Names: s.names})
	s.launched, s.launchedAt, s.nextSweep = true, now, now.Add(c.cfg.Sweep)
	p := s.params
	c.log.Info("webdoom: game launched", "slots", s.slots, "wad", p.Wad, "episode", p.Episode, "map", p.Map, "skill", p.Skill, "mode", p.Mode)
}

// parseSlot reads the slot of /ws/game?slot=N as WebDoom does
// (+searchParams.get('slot')): a missing slot reads as 0, like "".
func parseSlot(rawQuery string) (int, bool) {
	v, _ := webDoomQueryValue(rawQuery, "slot")
	f := wire.JSNumber(v)
	if f != math.Trunc(f) || f < 0 || f >= wire.Slots {
		return -1, false
	}
	return int(f), true
}

// OpenGame reports a new /ws/game socket; rawQuery is its URL's query.
func (c *Core) OpenGame(id ConnID, rawQuery string, now time.Time) []Action {
	c.out = c.out[:0]
	c.now = now
	cn := c.open(id, wdGame)
	if cn == nil {
		return c.out
	}
	slot, ok := parseSlot(rawQuery)
	s := c.session
	switch {
	case !ok:
		c.refuse(id, cn, RefuseBadSlot, "query", rawQuery)
		return c.out
	case s == nil:
		c.refuse(id, cn, RefuseNoSession, "slot", slot)
		return c.out
	case s.players[slot].conn != 0:
		c.refuse(id, cn, RefuseSlotTaken, "slot", slot)
		return c.out
	case !s.players[slot].ingame && s.historyFull:
		c.refuse(id, cn, RefuseHistoryCap, "slot", slot, "cap", c.cfg.MaxHistoryTics)
		return c.out
	}
	p := &s.players[slot]
	cn.slot, cn.session = slot, s
	p.conn, p.joined, p.lastSeen = id, true, now
	if !p.ingame {
		p.joining = true
		if p.reservedAt.IsZero() {
			p.reservedAt = now
		}
		c.out = append(c.out, Action{Kind: SendHistory, Conn: id, History: s.history.view()})
		c.log.Info("webdoom: drop-in catching up", "conn", id, "slot", slot, "history", s.history.Len())
	} else {
		c.log.Info("webdoom: player connected", "conn", id, "slot", slot)
	}
	return c.out
}

// GameMessage reports a message on a /ws/game socket.
func (c *Core) GameMessage(id ConnID, msg []byte, now time.Time) []Action {
	c.out = c.out[:0]
	c.now = now
	cn := c.incoming(id, wdGame, now)
	if cn == nil {
		return c.out
	}
	s := c.session
	if s == nil || cn.session != s {
		return c.out
	}
	m, err := wire.DecodeCmdMessage(msg)
	if err != nil {
		return c.out // not 12 bytes: ignored
	}
	p := &s.players[cn.slot]
	p.sentAny, p.lastSeen = true, now
	if p.joining && !p.ingame && !p.joinAtSet {
		p.joinAtSet, p.joinAt = true, s.next+c.cfg.JoinMargin
		c.log.Info("webdoom: drop-in live", "slot", cn.slot, "at_tic", p.joinAt)
	}
	if m.Tic < s.next || uint64(m.Tic) > uint64(s.next)+uint64(c.cfg.CmdWindow) {
		return c.out // already sealed, or absurdly far ahead
	}
	p.ring[m.Tic&uint32(len(p.ring)-1)] = webDoomCmdEntry{tic: m.Tic, has: true, cmd: m.Cmd}
	c.seal(now)
	return c.out
}

func (c *Core) gameClosed(id ConnID, cn *webDoomConn) {
	s := c.session
	if s == nil || cn.session != s || s.players[cn.slot].conn != id {
		return
	}
	p := &s.players[cn.slot]
	wasIn := p.ingame
	p.conn, p.ingame, p.joining, p.joinAtSet = 0, false, false, false
	if wasIn {
		c.stats.drop(DropLeft)
	}
	c.log.Info("webdoom: player disconnected", "conn", id, "slot", cn.slot, "was_in_game", wasIn)
	if c.nobodyInGame() {
		c.endSession("all players left")
	}
}

// OpenSpectator reports a new /ws/spectate socket. The core never hears
// of anything a spectator sends: the endpoint has no message event.
func (c *Core) OpenSpectator(id ConnID, now time.Time) []Action {
	c.out = c.out[:0]
	c.now = now
	cn := c.open(id, wdSpectate)
	if cn == nil {
		return c.out
	}
	s := c.session
	switch {
	case s == nil:
		c.refuse(id, cn, RefuseNoSession)
		return c.out
	case s.historyFull:
		c.refuse(id, cn, RefuseHistoryCap, "cap", c.cfg.MaxHistoryTics)
		return c.out
	case c.cfg.MaxSpectators > 0 && len(s.spectators) >= c.cfg.MaxSpectators:
		c.refuse(id, cn, RefuseSpectatorCap, "spectators", len(s.spectators))
		return c.out
	}
	cn.session = s
	c.out = append(c.out, Action{Kind: SendHistory, Conn: id, History: s.history.view()})
	s.spectators = append(s.spectators, id)
	c.log.Info("webdoom: spectator connected", "conn", id, "history", s.history.Len())
	return c.out
}

func (c *Core) nobodyInGame() bool {
	for i := range c.session.players {
		if c.session.players[i].ingame {
			return false
		}
	}
	return true
}

// allJoined: every in-game player has connected at least once.
func (s *webDoomSession) allJoined() bool {
	for i := range s.players {
		if p := &s.players[i]; p.ingame && !p.joined {
			return false
		}
	}
	return true
}

// seal seals tics while every in-game player has a cmd for the next one.
func (c *Core) seal(now time.Time) {
	s := c.session
	if s == nil || !s.allJoined() {
		return
	}
	for {
		live, ready := 0, true
		for i := range s.players {
			if p := &s.players[i]; p.ingame {
				live++
				if _, ok := p.cmd(s.next); !ok {
					ready = false
				}
			}
		}
		if live == 0 || !ready {
			return
		}
		c.sealTic()
	}
}

// sealTic seals the next tic: missing cmds are fabricated from each slot's
// last cmd; the bundle joins the history and goes to every player socket
// and spectator.
func (c *Core) sealTic() {
	s := c.session
	tic := s.next
	s.next++
	for i := range s.players {
		if p := &s.players[i]; p.joinAtSet && tic >= p.joinAt {
			p.ingame, p.joinAtSet = true, false
			c.log.Info("webdoom: drop-in in game", "slot", p.slot, "tic", tic)
		}
	}
	var b []byte
	if c.cfg.MaxHistoryTics > 0 && s.history.Len() >= c.cfg.MaxHistoryTics {
		if !s.historyFull {
			s.historyFull = true
			c.log.Warn("webdoom: history cap reached; drop-in and spectating closed for this session", "cap", c.cfg.MaxHistoryTics)
		}
		b = make([]byte, wire.BundleSize)
	} else {
		b = s.history.next()
	}
	binary.LittleEndian.PutUint32(b, tic)
	var mask, fab uint8
	for i := range s.players {
		p := &s.players[i]
		if p.ingame {
			mask |= 1 << i
		}
		cmd, ok := p.cmd(tic)
		if ok {
			p.last = cmd
			p.ring[tic&uint32(len(p.ring)-1)].has = false
		} else {
			fab |= 1 << i
			if p.ingame {
				c.stats.fabrications.Add(1)
			}
		}
		copy(b[6+i*wire.TicCmdSize:], p.last[:])
	}
	b[4], b[5] = mask, fab
	c.stats.seals.Add(1)
	for i := range s.players {
		if p := &s.players[i]; p.conn != 0 {
			c.send(p.conn, SendBinary, b)
		}
	}
	for _, id := range s.spectators {
		c.send(id, SendBinary, b)
	}
}

// sweep runs every Sweep after launch: frees stale reservations, drops
// players that never connected or went silent, and seals one tic with
// fabricated cmds when the longest-silent laggard has been silent long
// enough.
func (c *Core) sweep(now time.Time) {
	s := c.session
	for i := range s.players {
		p := &s.players[i]
		if p.joining && !p.ingame && now.Sub(p.reservedAt) > c.cfg.JoinTimeout {
			p.joining, p.joinAtSet, p.reservedAt = false, false, time.Time{}
			if p.conn != 0 {
				c.closeConn(p.conn, DropJoinTimeout)
				p.conn = 0
			}
			c.stats.drop(DropJoinTimeout)
			c.log.Info("webdoom: dropped", "slot", p.slot, "reason", DropJoinTimeout)
		}
	}
	if now.Sub(s.launchedAt) > c.cfg.NeverJoined {
		for i := range s.players {
			if p := &s.players[i]; !p.joined && p.ingame {
				p.ingame = false
				c.stats.drop(DropNeverJoined)
				c.log.Info("webdoom: dropped", "slot", p.slot, "reason", DropNeverJoined)
			}
		}
	}
	if c.nobodyInGame() {
		c.endSession("nobody in game")
		return
	}
	if !s.allJoined() {
		return
	}
	rolling := true
	for i := range s.players {
		if p := &s.players[i]; p.ingame && !p.sentAny {
			rolling = false
		}
	}
	if !rolling && now.Sub(s.launchedAt) < c.cfg.NeverJoined {
		return // no fabrication until the game is rolling: boot times differ
	}
	var laggards []*webDoomPlayer
	for i := range s.players {
		p := &s.players[i]
		if _, ok := p.cmd(s.next); p.ingame && !ok {
			laggards = append(laggards, p)
		}
	}
	if len(laggards) == 0 {
		c.seal(now) // a drop above may have unblocked sealing
		return
	}
	stillIn := false
	oldest := now
	for _, p := range laggards {
		if now.Sub(p.lastSeen) > c.cfg.Drop {
			p.ingame = false
			if p.conn != 0 {
				c.closeConn(p.conn, DropSilent)
			}
			c.stats.drop(DropSilent)
			c.log.Info("webdoom: dropped", "slot", p.slot, "reason", DropSilent, "silent", now.Sub(p.lastSeen))
		} else {
			stillIn = true
		}
		if p.lastSeen.Before(oldest) {
			oldest = p.lastSeen
		}
	}
	if stillIn && now.Sub(oldest) < c.cfg.Fabricate {
		return
	}
	c.stats.forcedSeals.Add(1)
	c.sealTic()
	c.seal(now)
}

// endSession ends the game: game and spectator sockets close, the history
// is released, and the lobby reopens.
func (c *Core) endSession(reason string) {
	s := c.session
	for i := range s.players {
		if id := s.players[i].conn; id != 0 {
			c.closeConn(id, "session over")
		}
	}
	for _, id := range s.spectators {
		c.closeConn(id, "session over")
	}
	c.session = nil
	c.stats.sessionsOver.Add(1)
	c.log.Info("webdoom: game over", "reason", reason, "tics", s.next)
	c.castRoster()
}
