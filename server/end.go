package server

import (
	"slices"
	"time"

	"github.com/rewindnet/rewind/codec"
)

// The end of a match. Goodbye says bye at once: every peer gets what it
// was not sent yet, a datagram at a time, best effort, then the bye
// (three times; a bye is not acknowledged). End ends the match so that
// nobody misses its last ticks: no tick runs after it; every player and
// spectator is sent the ticks it lacks, resent as during play (a delayed
// spectator still none before its delay), and is said goodbye
// (codec.ReasonEnded, with the match's last tick) once it has
// acknowledged the last tick, or once Config.Linger (plus its delay) has
// passed since End. A peer that speaks after its goodbye (the goodbye was
// lost) is said it again, at most once a tick; it is done with when it
// has been quiet for twice its round trip and 100 ms after its goodbye,
// or at the deadline. Done reports when every peer is done with: the
// caller may then close the Conn.
//
//	server                                   spectator
//	End (last tick L)
//	ServerTicks ... L   ------------------>
//	                    <------------------  ack through L
//	Bye(Ended, last L)  ------------------>  has every tick up to L

// endState is the end of the match (End).
type endState struct {
	on  bool
	at  time.Time    // when End was called
	why codec.Reason // the goodbyes' reason: ReasonEnded, or ReasonOperator (EndWith)
}

// endQuiet is how long a peer said goodbye to must stay quiet, beyond
// twice its round trip, for the goodbye to count as received.
const endQuiet = 100 * time.Millisecond

// End ends the match at now: no tick runs after it, and Update sends every
// player and spectator the ticks it lacks, then its goodbye (see above).
// The recorder, if any, is closed. Calling End again does nothing.
func (s *Server[I]) End(now time.Time) {
	if s.fin.on {
		return
	}
	s.fin = endState{on: true, at: now, why: codec.ReasonEnded}
	s.recordEnd()
}

// Ending reports whether End was called.
func (s *Server[I]) Ending() bool { return s.fin.on }

// Done reports whether the match ended (End) and every player and
// spectator has been said goodbye (or its time ran out): nothing is left
// to send.
func (s *Server[I]) Done() bool {
	if !s.fin.on {
		return false
	}
	for _, p := range slices.Concat(s.players, s.specs) {
		if p != nil && p.addr != "" && !p.done {
			return false
		}
	}
	return true
}

// endPeers says goodbye to the peers that have every tick or whose time
// ran out, and notes those done with. It runs in every Update after End,
// before the round of sends (which skips the peers said goodbye to).
func (s *Server[I]) endPeers(now time.Time) error {
	for _, p := range slices.Concat(s.players, s.specs) {
		if p == nil || p.addr == "" || p.done {
			continue
		}
		deadline := s.fin.at.Add(s.cfg.Linger + p.delay)
		late := !now.Before(deadline)
		if !p.byeAt.IsZero() {
			heard := p.byeAt
			if p.lastHeard.After(heard) {
				heard = p.lastHeard
			}
			quiet := now.Sub(heard) > 2*p.res.RTT()+endQuiet
			p.done = quiet || late
			continue
		}
		// Every tick acknowledged, and the world pushed to it (if any)
		// too: it can verify them.
		has := p.specAt.IsZero() && p.res != nil && !p.rebasing && p.xfer == nil && int32(p.res.Base()-(s.tick+1)) >= 0
		switch {
		case p.leaving || now.Sub(p.lastHeard) > s.cfg.PlayerTimeout:
			p.done = true // it left, or is gone
		case has || late:
			if err := s.sayEnded(now, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// sayEnded says goodbye to p (three times) with the match's last tick.
func (s *Server[I]) sayEnded(now time.Time, p *player) error {
	p.byeAt = now
	b := codec.NewBye(p.tag, s.fin.why)
	b.HasLast, b.Last = true, s.tick
	for range 3 {
		if err := s.send(p.addr, b.Append(s.wire.sbuf[:0])); err != nil {
			return err
		}
	}
	return nil
}

// onEnded answers a datagram from p, said goodbye to already: its
// goodbye was lost, so it is said again (at most once a tick).
func (s *Server[I]) onEnded(now time.Time, p *player) {
	if now.Sub(p.byeAt) < s.dt {
		p.lastHeard = now
		return
	}
	p.lastHeard = now
	p.done = false
	_ = s.sayEnded(now, p)
}
