package server

import (
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/transport"
)

// Spectators. A spectator says hello with the spectator flag and is
// admitted without a player slot: it is not in the world (no join event,
// no input), it does not count against MaxPlayers but against
// MaxSpectators, and its welcome carries codec.SpectatorID. It is sent
// what a player is sent — the world, then every tick, the same encoded
// tick bodies (an extra spectator costs a send, not an encode) — and, with
// a delay, nothing before the delay has passed since the tick ran: its
// welcome waits until the world of the tick it starts from is that old,
// and then comes from the server's history.
//
// Receive-only by construction: from a spectator the server takes the
// acknowledgement of a ClientInputs (never its inputs), pings, its bye, and
// the world transfer's own messages (WorldAck, PageHashRequest,
// PageRequest: a spectator that fell behind gets the world again, like a
// player); everything else is dropped without effect, counted as
// SpectatorDropped.
//
// In a world with private scenes (scenes.go) a spectator sees the public
// scene only: its tick bodies carry the hash of the public scene, and its
// world transfers, page hashes and repair pages hold nothing of a private
// or server scene; like every other player it gets the relayed inputs,
// private fields zero.

// onSpectatorHello admits a spectator, or refuses it (spectators full).
func (s *Server[I]) onSpectatorHello(now time.Time, from transport.Addr, h codec.Hello) {
	if len(s.specs) >= s.cfg.MaxSpectators || s.closedJoins {
		s.refuse(from, codec.ReasonFull)
		return
	}
	delay := min(time.Duration(h.Delay)*time.Millisecond, s.cfg.History-s.cfg.History/4)
	rc := s.cfg.Resend
	rc.Selective = !s.cfg.ResendAll
	p := newPlayer(game.PlayerID(codec.SpectatorID), from, 1, s.size, s.cfg.MarginWindow, s.newResender(rc, 1), now)
	p.spectator, p.delay = true, delay
	p.tag = s.nextTag()
	s.specs = append(s.specs, p)
	s.byAddr[from] = p
	s.prove(from)
	s.stats.Spectators++
	if delay == 0 || s.tick == 0 {
		s.startAt(now, p, true)
		return
	}
	// Start from the world of this tick, once it is delay old.
	p.specFrom = s.tick
	p.welcomeRoster = s.wire.enc.Roster().AppendSnapshot(p.welcomeRoster[:0])
	p.specAt = s.tickTime(s.tick).Add(delay)
}

// keepRoster keeps the roster after the tick of rec in rec while a
// delayed spectator watches: the welcome of a delayed spectator that
// fell behind the history, to the world of a tick in the history, carries
// that tick's roster (rebaseSpectator).
func (s *Server[I]) keepRoster(rec *record) {
	rec.rosterOK = false
	for _, p := range s.specs {
		if p.delay > 0 {
			rec.roster = s.wire.enc.Roster().AppendSnapshot(rec.roster[:0])
			rec.rosterOK = true
			return
		}
	}
}

// rebaseSpectator gets a spectator that fell further behind than the
// history the world again, like a player (rebase), keeping its delay: a
// delayed spectator is welcomed to the world of the newest tick it may be
// shown (delayedTick), from the history, with that tick's roster; if the
// history does not hold that tick's roster (it came before the spectator
// did), to the last tick's world once that is delay old, as at its hello.
func (s *Server[I]) rebaseSpectator(now time.Time, p *player) {
	if p.delay == 0 {
		s.rebase(now, p)
		return
	}
	s.stats.Rebases++
	t := s.delayedTick(now, p)
	rec := &s.hist[t&s.hmask]
	if t == 0 || rec.tick != t || !rec.rosterOK || int32(t-s.oldestKept()) < 0 {
		p.specFrom = s.tick
		p.welcomeRoster = s.wire.enc.Roster().AppendSnapshot(p.welcomeRoster[:0])
		p.specAt = s.tickTime(s.tick).Add(p.delay)
		p.rebasing = true
		return
	}
	p.specFrom = t
	p.welcomeRoster = append(p.welcomeRoster[:0], rec.roster...)
	s.startSpectator(now, p)
	p.rebasing = true // its welcome goes again until it acknowledges a tick after it
}

// startSpectator welcomes a delayed spectator at the tick it was told to
// start from, now that tick is delay old, and pushes its world from the
// history (page hashes; the spectator asks for the pages).
func (s *Server[I]) startSpectator(now time.Time, p *player) {
	t := p.specFrom
	p.specAt = time.Time{}
	hs, ok := s.pageHashesFor(t, codec.SpectatorID)
	if !ok {
		s.startAt(now, p, true) // out of reach: the last tick, at once
		return
	}
	rc := s.cfg.Resend
	rc.Selective = !s.cfg.ResendAll
	p.res = s.resetResender(p.res, rc, t+1)
	p.lastAck = reliable.Ack{}
	p.inWin.Reset(t + 1)
	s.wire.xferIDs += 1 << 16
	p.welcomeID = s.wire.xferIDs
	p.welcomeTick = t
	p.welcomeSent = now
	p.xfer = nil
	s.sendWelcome(p)
	s.sendPageHashes(p, t, hs, 0, uint32(len(hs)))
}

// onSpectator handles a datagram from spectator p: acks, pings, its bye
// and its world transfer; nothing else.
func (s *Server[I]) onSpectator(now time.Time, p *player, typ codec.Type, b []byte) {
	switch typ {
	case codec.TypeClientInputs:
		m, _, err := codec.ParseClientInputs(b, s.tick)
		if err != nil {
			s.stats.BadDatagrams++
			return
		}
		if m.Count > 0 {
			s.stats.SpectatorDropped++ // its inputs are not read
		}
		if p.res != nil && int32(m.Ack.Next-p.res.Base()) >= 0 {
			p.res.OnAck(m.Ack, now)
			p.lastAck = m.Ack
		}
	case codec.TypePing, codec.TypeBye, codec.TypeWorldAck, codec.TypePageHashRequest, codec.TypePageRequest, codec.TypeModule:
		if !p.specAt.IsZero() {
			return // not welcomed yet: nothing to answer
		}
		s.handlePlayer(now, p, typ, b)
		return
	default:
		s.stats.SpectatorDropped++
		return
	}
	p.lastHeard = now
}

// delayedTick returns the newest tick spectator p may be sent: the last
// tick run, or, with a delay, the last that ran at least the delay ago.
func (s *Server[I]) delayedTick(now time.Time, p *player) uint32 {
	if p.delay == 0 {
		return s.tick
	}
	d := now.Sub(s.start) - p.delay
	if d < 0 {
		return 0
	}
	return min(uint32(d/s.dt), s.tick)
}

// sendSpectators welcomes the delayed spectators whose time came, sends
// every spectator the ticks it lacks, and forgets those that said bye or
// went silent for PlayerTimeout.
func (s *Server[I]) sendSpectators(now time.Time) error {
	oldest := s.oldestKept()
	kept := s.specs[:0]
	for _, p := range s.specs {
		if p.leaving || now.Sub(p.lastHeard) > s.cfg.PlayerTimeout {
			delete(s.byAddr, p.addr)
			s.freeResenders(p)
			continue
		}
		kept = append(kept, p)
		if !p.byeAt.IsZero() {
			continue // the match ended and said it goodbye (end.go)
		}
		if !p.specAt.IsZero() {
			if !now.Before(p.specAt) {
				s.startSpectator(now, p)
			}
			continue
		}
		if int32(oldest-p.res.Base()) > 0 {
			s.rebaseSpectator(now, p)
		}
		if s.welcomeOrBackOff(now, p) {
			continue
		}
		if err := s.sendUpTo(now, p, s.delayedTick(now, p)); err != nil {
			return err
		}
	}
	clear(s.specs[len(kept):])
	s.specs = kept
	return nil
}

// flushSpectators sends every spectator without a delay the ticks it was
// not sent yet, up to the last tick run, before the goodbye: a datagram at
// a time, best effort (like the bye itself). A delayed spectator is sent
// nothing newer than its delay.
func (s *Server[I]) flushSpectators() {
	for _, p := range s.specs {
		if !p.specAt.IsZero() || p.res == nil || p.addr == "" {
			continue
		}
		upto := s.delayedTick(s.lastNow, p)
		for range 64 {
			next := p.res.Next()
			if int32(next-upto) > 0 {
				break
			}
			if s.sendUpTo(s.lastNow, p, upto) != nil || p.res.Next() == next {
				break
			}
		}
	}
}
