package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Resume is where a server that takes a match over from a server that
// went (host migration) starts: the world after a tick of that match, who
// was present with which inputs, and the old server's handover data. The
// tick numbers go on: the server's next tick is Tick+1.
type Resume struct {
	// Tick is the match's tick World is after (the new host's last
	// verified tick).
	Tick uint32
	// World is the match's world after Tick. New copies it.
	World *world.World
	// Roster is the tick stream's roster after Tick (codec.Roster's
	// snapshot: who is present, their inputs), as client.Handoff gives it.
	Roster []byte
	// Handover is the old server's newest handover data. Its players who
	// are present in Roster stay in the match without join events, their
	// inputs repeated, for Wait, to come back with their cookies (matched
	// by digest) into their ids; those who do not leave then. The old
	// server machine's own player (Handover.Own) leaves at the first tick.
	Handover codec.Handover
	// Wait is how long the old players have to come back (default 20 s).
	Wait time.Duration
}

// DefaultResumeWait is Resume.Wait's default.
const DefaultResumeWait = 20 * time.Second

// resumeState is what a resumed server keeps until its first Update.
type resumeState struct {
	pending bool
	wait    time.Duration
	// Who awaits: by id, the digests of the cookies they may come back
	// with.
	digests map[game.PlayerID][][codec.HandoverDigestSize]byte
	leave   []game.PlayerID // present players who leave at the first tick
}

// resume sets the server up from r (called by New): the world and tick,
// the encoder's roster, and an awaited player for every present player of
// the handover.
func (s *Server[I]) resume(r *Resume) error {
	if r.World == nil {
		return fmt.Errorf("server: resume without a world: %w", ErrConfig)
	}
	var snap world.Snapshot
	r.World.SnapshotInto(&snap)
	if err := s.w.Restore(&snap); err != nil {
		return fmt.Errorf("server: resume: %w", err)
	}
	if err := s.wire.enc.Roster().ParseSnapshot(r.Roster); err != nil {
		return fmt.Errorf("server: resume roster: %w: %w", err, ErrConfig)
	}
	s.tick = r.Tick
	rec := &s.hist[r.Tick&s.hmask]
	rec.tick, rec.hash, rec.events, rec.body = r.Tick, s.w.Hash(), rec.events[:0], rec.body[:0]
	s.checkpoint(r.Tick)
	rs := &s.rs
	rs.pending, rs.wait = true, r.Wait
	if rs.wait <= 0 {
		rs.wait = DefaultResumeWait
	}
	rs.digests = make(map[game.PlayerID][][codec.HandoverDigestSize]byte)
	for _, hp := range r.Handover.Players {
		if r.Handover.HasOwn && hp.ID == r.Handover.Own {
			continue
		}
		rs.digests[game.PlayerID(hp.ID)] = hp.Digests
	}
	present := s.wire.enc.Roster().Present()
	for id := len(s.players); id < codec.MaxPlayers; id++ {
		if present.Has(uint8(id)) {
			return fmt.Errorf("server: resume: player %d is in the match, MaxPlayers is %d: %w", id, len(s.players), ErrConfig)
		}
	}
	for id := range min(len(s.players), codec.MaxPlayers) {
		if !present.Has(uint8(id)) {
			continue
		}
		if _, ok := rs.digests[game.PlayerID(id)]; !ok {
			rs.leave = append(rs.leave, game.PlayerID(id))
		}
	}
	return nil
}

// startResumed starts a resumed server's clock at now: tick Tick+1 is due
// a tick from now, and every present player awaits its owner (or leaves
// at the first tick).
func (s *Server[I]) startResumed(now time.Time) {
	rs := &s.rs
	rs.pending = false
	s.started = true
	s.start = now.Add(-time.Duration(s.tick) * s.dt)
	s.lastRound = now
	roster := s.wire.enc.Roster()
	rc := s.cfg.Resend
	rc.Selective = !s.cfg.ResendAll
	add := func(id game.PlayerID) *player {
		p := newPlayer(id, "", int(s.qmask+1), s.size, s.cfg.MarginWindow, s.newResender(rc, 1), now)
		p.present, p.joinTick = true, s.tick
		copy(p.last, roster.Input(uint8(id)))
		s.players[id], s.present[id] = p, true
		s.joined++
		return p
	}
	for id, d := range rs.digests {
		if int(id) < len(s.players) && roster.Present().Has(uint8(id)) {
			p := add(id)
			p.digests, p.awaitUntil = d, now.Add(rs.wait)
		}
	}
	for _, id := range rs.leave {
		if int(id) < len(s.players) {
			add(id).leaving = true
		}
	}
	rs.digests, rs.leave = nil, nil
}

// awaitedCookie returns the awaited player (of the match this server took
// over) whose cookie digest sum matches, comparing every digest in
// constant time.
func (s *Server[I]) awaitedCookie(sum *[sha256.Size]byte) (game.PlayerID, bool) {
	d := codec.CookieDigest(sum)
	id, ok := game.PlayerID(0), false
	for i, p := range s.players {
		if p == nil || p.awaitUntil.IsZero() {
			continue
		}
		found := 0
		for _, pd := range p.digests {
			found |= subtle.ConstantTimeCompare(pd[:], d[:])
		}
		if found == 1 {
			id, ok = game.PlayerID(i), true
		}
	}
	return id, ok
}

// Awaiting returns how many players of the match this server took over
// have not come back yet.
func (s *Server[I]) Awaiting() int {
	n := 0
	for _, p := range s.players {
		if p != nil && !p.awaitUntil.IsZero() && !p.leaving {
			n++
		}
	}
	return n
}
