package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"slices"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/transport"
)

// maxCookies is how many cookie hashes a player keeps: every new welcome
// (a rebase, a rejoin from a new address) carries a fresh cookie, and the
// client keeps the newest that reached it. A welcome sent again for a
// repeated hello carries the same cookie as before, so that hellos
// repeated over a lossy path cannot push the cookie the client holds out
// of the newest few.
const maxCookies = 4

// reservation keeps a player's id and cookie hashes after it left, for it
// to rejoin with its cookie.
type reservation struct {
	hashes [][sha256.Size]byte
	until  time.Time
}

// newCookie makes a fresh cookie for p and keeps only its SHA-256.
func newCookie(p *player) [codec.CookieSize]byte {
	var c [codec.CookieSize]byte
	_, _ = rand.Read(c[:])
	h := sha256.Sum256(c[:])
	if len(p.cookies) >= maxCookies {
		copy(p.cookies, p.cookies[1:])
		p.cookies = p.cookies[:maxCookies-1]
	}
	p.cookies = append(p.cookies, h)
	return c
}

// matchCookie reports whether sum is one of hashes, comparing every one in
// constant time.
func matchCookie(hashes [][sha256.Size]byte, sum *[sha256.Size]byte) bool {
	found := 0
	for i := range hashes {
		found |= subtle.ConstantTimeCompare(hashes[i][:], sum[:])
	}
	return found == 1
}

// findCookie returns the player id a cookie was given to: a player in the
// match, or one that left within RejoinWindow.
func (s *Server[I]) findCookie(now time.Time, cookie [codec.CookieSize]byte) (game.PlayerID, bool) {
	sum := sha256.Sum256(cookie[:])
	id, ok := s.awaitedCookie(&sum)
	for i, p := range s.players {
		if p != nil && matchCookie(p.cookies, &sum) {
			id, ok = game.PlayerID(i), true
		}
	}
	for i := range s.reserved {
		r := &s.reserved[i]
		if r.until.After(now) && matchCookie(r.hashes, &sum) {
			id, ok = game.PlayerID(i), true
		}
	}
	return id, ok
}

// freeID returns a free player id: one nobody holds or reserved, else the
// reserved one that expires first.
func (s *Server[I]) freeID(now time.Time) int {
	best := -1
	for i, q := range s.players {
		if q != nil {
			continue
		}
		r := &s.reserved[i]
		if !r.until.After(now) {
			return i
		}
		if best < 0 || r.until.Before(s.reserved[best].until) {
			best = i
		}
	}
	return best
}

// onHello admits a new player, answers a repeated hello with the same
// welcome, takes a player back by its cookie, or refuses.
func (s *Server[I]) onHello(now time.Time, from transport.Addr, b []byte, p *player) {
	h, _, err := codec.ParseHello(b)
	switch {
	case err != nil:
		s.stats.BadDatagrams++
		return
	case h.Version != codec.ProtocolVersion:
		s.refuse(from, codec.ReasonProtocol)
		return
	case h.Game != s.wire.fingerprint && (!h.HostSettings || h.Game != s.wire.base):
		// A client that takes our settings knows only its input schema:
		// it checks the full fingerprint the welcome carries.
		s.refuse(from, codec.ReasonGame)
		return
	}
	if p != nil {
		// A repeated hello (its welcome was lost): the same welcome again
		// (a delayed spectator's comes when its time came).
		p.lastHeard = now
		if p.specAt.IsZero() {
			s.sendWelcome(p)
		}
		return
	}
	if h.Spectator {
		s.onSpectatorHello(now, from, h)
		return
	}
	id := -1
	if h.HasCookie {
		cid, ok := s.findCookie(now, h.Cookie)
		if !ok {
			s.refuse(from, codec.ReasonCookie)
			return
		}
		if q := s.players[cid]; q != nil {
			if q.leaving {
				return // it leaves in the next tick; the next hello rejoins
			}
			// The player is still in the match and speaks from a new
			// address (a restarted client, or one back from a match this
			// server took over): it continues there, from the world of
			// the last tick. One back from a match taken over holds that
			// match's world: it gets the pages it lacks.
			fresh := q.awaitUntil.IsZero()
			q.awaitUntil, q.digests = time.Time{}, nil
			delete(s.byAddr, q.addr)
			q.addr = from
			s.byAddr[from] = q
			s.prove(from)
			q.tag = s.nextTag()
			q.lastHeard = now
			s.stats.Rejoins++
			s.stats.Rebases++
			q.adm.rebases++
			q.rebasing = true
			s.startAt(now, q, fresh) // a new client holds the start world
			return
		}
		id = int(cid)
		s.stats.Rejoins++
	} else {
		id = s.freeID(now)
		if id < 0 || s.fullForIP(from) || s.closedJoins { // closedJoins: SetClosed (admin.go)
			s.refuse(from, codec.ReasonFull)
			return
		}
	}
	s.reserved[id] = reservation{}
	rc := s.cfg.Resend
	rc.Selective = !s.cfg.ResendAll
	p = newPlayer(game.PlayerID(id), from, int(s.qmask+1), s.size, s.cfg.MarginWindow, s.newResender(rc, 1), now)
	p.tag = s.nextTag()
	s.players[id] = p
	s.byAddr[from] = p
	s.prove(from)
	s.joined++
	s.startAt(now, p, true)
}

// prove tells the Conn, if it tells proven peers from unproven ones
// (transport.Prover), that the peer at from is a player of the match: the
// transport's caps for the unproven no longer apply to it.
func (s *Server[I]) prove(from transport.Addr) {
	if pv, ok := s.conn.(transport.Prover); ok {
		pv.Prove(from)
	}
}

func (s *Server[I]) nextTag() uint8 {
	s.wire.tags++
	if s.wire.tags == 0 {
		s.wire.tags = 1
	}
	return s.wire.tags
}

// startAt welcomes p at the last tick run: its ticks start after it, and
// the world of that tick follows (pushWorld; fresh: p is a new client,
// holding the world Setup made).
func (s *Server[I]) startAt(now time.Time, p *player, fresh bool) {
	rc := s.cfg.Resend
	rc.Selective = !s.cfg.ResendAll
	if p.res != nil && p.res.RTT() != reliable.DefaultResendConfig.InitialRTT {
		rc.InitialRTT = p.res.RTT()
	}
	p.res = s.resetResender(p.res, rc, s.tick+1)
	p.lastAck = reliable.Ack{}
	if p.inWin.Ack().Next == 0 {
		p.inWin.Reset(s.tick + 1)
	} else {
		p.inWin.AdvanceTo(s.tick + 1)
	}
	s.wire.xferIDs += 1 << 16
	p.welcomeID = s.wire.xferIDs
	p.welcomeTick = s.tick
	p.welcomeRoster = s.wire.enc.Roster().AppendSnapshot(p.welcomeRoster[:0])
	p.welcomeSent = now
	p.xfer = nil
	s.sendWelcome(p)
	s.pushWorld(now, p, fresh)
}

// rebase moves a player in the match to the world of the last tick run:
// one that fell further behind than the server keeps ticks (its world is
// its own: it gets page hashes and asks for what it lacks).
func (s *Server[I]) rebase(now time.Time, p *player) {
	if p.rebasing && p.welcomeTick == s.tick {
		return
	}
	s.stats.Rebases++
	p.adm.rebases++
	p.rebasing = true
	s.startAt(now, p, false)
}

// sendWelcome sends p its welcome: a fresh cookie with each new welcome,
// the same one when the welcome is sent again. With HostMigration a
// player's fresh cookie is in the handover data sent to the others just
// before it: should this server go right after, a claimer's data names
// it (a player that resumed with a cookie no claimer's data listed was
// refused "bad cookie" at the next host).
func (s *Server[I]) sendWelcome(p *player) {
	if !p.hasCookie || p.cookieFor != p.welcomeID {
		p.cookie, p.cookieFor, p.hasCookie = newCookie(p), p.welcomeID, true
		if !p.spectator && s.started {
			_ = s.sendHandover(s.lastNow) // a failing Conn fails the next Update's sends too
		}
	}
	w := codec.Welcome{
		Player:   uint8(p.id),
		Tag:      p.tag,
		Cookie:   p.cookie,
		Tick:     p.welcomeTick,
		HashBits: uint8(s.cfg.HashBits),
		TickRate: uint32(s.tickRate),
		Transfer: p.welcomeID,
		Roster:   p.welcomeRoster,
		Game:     s.wire.fingerprint,
		Settings: s.wire.settings,
	}
	_ = s.send(p.addr, w.Append(s.wire.sbuf[:0]))
}

// Shutdown says bye with ReasonShutdown (the server left, the match is
// over): Goodbye(codec.ReasonShutdown).
func (s *Server[I]) Shutdown() error { return s.Goodbye(codec.ReasonShutdown) }

// Goodbye says bye to every player at once, three times (a bye is not
// acknowledged), with reason r: codec.ReasonShutdown (the server left,
// the match is over), codec.ReasonEnded (the match ended on purpose; the
// bye names the last tick), codec.ReasonOperator (the operator ended it,
// likewise) or codec.ReasonMigrate (the server leaves, the
// match goes on at another host). What a peer was not sent yet goes
// before, best effort; End is the goodbye that waits for every peer to
// have every tick (end.go). The server keeps its state; the caller stops
// calling Update and closes the Conn.
func (s *Server[I]) Goodbye(r codec.Reason) error {
	s.recordEnd()
	s.flushSpectators()
	for _, p := range slices.Concat(s.players, s.specs) {
		if p == nil || p.addr == "" {
			continue
		}
		b := codec.NewBye(p.tag, r)
		b.HasLast, b.Last = r == codec.ReasonEnded || r == codec.ReasonOperator, s.tick
		for range 3 {
			if err := s.send(p.addr, b.Append(s.wire.sbuf[:0])); err != nil {
				return err
			}
		}
	}
	return nil
}
