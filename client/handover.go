package client

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec"
)

// handoverHeld is what the client keeps for host migration: the newest
// handover data its server sent, and the reason of the server's bye.
// inherited says the data held came from the match's previous server
// (Config.Resume), whose versions are not this server's.
//
// rebased is what the client would have handed off when a newer welcome
// took it back to loading (a rebase: it fell further behind than the
// server keeps ticks): its last verified tick and world stay the ones to
// go on from until the new world is in.
type handoverHeld struct {
	msg       codec.Handover
	have      bool
	inherited bool
	bye       codec.Reason
	rebased   *Handoff
}

// onHandover keeps a handover newer than the one held (in wrapping
// version order); a malformed one is an error (counted and dropped by the
// caller) and leaves the held one as it was. The first handover of a
// server that took the match over replaces the one the client carried
// from the previous server, whatever the versions: each server counts
// its own from the start, and the previous server's data lists the
// digests of cookies this server no longer takes (a player that came
// back got a fresh cookie with its welcome).
func (c *Client[I]) onHandover(b []byte) error {
	m, _, err := codec.ParseHandover(b)
	if err != nil {
		return err
	}
	if c.ho.have && !c.ho.inherited && !codec.Newer(m.Version, c.ho.msg.Version) {
		return nil
	}
	c.ho.msg, c.ho.have, c.ho.inherited = m, true, false
	c.st.Handovers++
	return nil
}

// Handover returns the newest handover data the server sent (with
// server.Config.HostMigration: the room, the players and their cookie
// digests, the tick rate) and whether one came.
func (c *Client[I]) Handover() (codec.Handover, bool) { return c.ho.msg, c.ho.have }

// ByeReason returns why the server said bye (codec.ReasonMigrate: the
// match goes on at another host; codec.ReasonEnded: it ended on purpose;
// codec.ReasonShutdown: the server left, the match is over;
// codec.ReasonKicked), or codec.ReasonNone if it did not.
func (c *Client[I]) ByeReason() codec.Reason { return c.ho.bye }

// onBye ends the connection at the server's bye, keeping its reason: a
// "goes on elsewhere" goodbye is ErrHostLeaving (and ErrKicked), "the
// match ended" an *EndedError (ErrMatchEnded and ErrKicked), any other
// ErrKicked.
func (c *Client[I]) onBye(now time.Time, b []byte) error {
	m, _, err := codec.ParseBye(b)
	if err != nil {
		return err
	}
	if m.Why() == codec.ReasonEnded || m.Why() == codec.ReasonOperator {
		// The match is over: a server that ended it said goodbye once
		// this client had acknowledged every tick; verify those that
		// wait before closing.
		if c.phase == playing {
			_ = c.fold(now)
		}
		c.phase = closed
		c.ho.bye = m.Why()
		e := &EndedError{HasLast: m.HasLast, Last: m.Last, Operator: m.Why() == codec.ReasonOperator}
		if c.core != nil {
			e.Verified = c.core.verified
		}
		return e
	}
	c.phase = closed
	c.ho.bye = m.Why()
	if m.Why() == codec.ReasonMigrate {
		return fmt.Errorf("client: server said bye (%v): %w: %w", m.Why(), ErrHostLeaving, ErrKicked)
	}
	return fmt.Errorf("client: server said bye (%v): %w", m.Why(), ErrKicked)
}
