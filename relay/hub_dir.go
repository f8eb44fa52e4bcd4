package relay

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// The room directory is called outside the hub's lock: a Redis round trip
// (roomdir.Redis) must not stall every other connection and room of
// the relay. A message that needs the directory (host, join, end, claim,
// open, lookup) is handled in three steps:
//
//	locked    rate limit, decode, checks of the connection's own state
//	          and of its address's failed joins (precheck)
//	unlocked  the directory's answer: a lookup, or a claim of the code,
//	          and the fleet-wide failed-join throttle (consult)
//	locked    the decision, on the answer and on the hub's state as it is
//	          now (the connection may have been closed meanwhile: abandon)
//
// A connection's messages are handled one after the other (its reader, or
// for a stand-in the fleet's receiver, waits for each), so its own
// messages keep their order. Directory writes that follow a decision
// (Remove, Refresh, a failed join counted in Redis) are queued while
// the lock is held (later) and run, in the order queued, once it is
// released (unlock), by the goroutine that made the decision, before it
// takes the connection's next message. An end's End is made before the
// decision (consult), so that no player hears a room ended before the
// directory says so. Writes to one code from different goroutines may
// pass each other; roomdir.Redis's End, Remove and
// Refresh are atomic and conditional (roomdir/redis.go) so that a late one
// never undoes an earlier decision: a Remove or a Refresh leaves an ended
// room's memory alone.

// dirAnswer is what the directory said for one message.
type dirAnswer struct {
	rec roomdir.Record
	ok  bool // rec found
	err error
	// claimed: the code was claimed for this message (host, or a claim of
	// a room the directory had forgotten); abandon removes it.
	claimed bool
	// throttled: the fleet's failed-join throttle refused the address.
	throttled bool
	// ended: an end with the room's key marked it ended in the
	// directory (before anyone is told, so that a player told it ended
	// and coming back finds it ended).
	ended bool
	// ownerDead: rec is owned by another relay of the fleet whose
	// liveness key is gone (fleet.go).
	ownerDead bool
	// sendTo: the message goes to this relay of the fleet: an open no
	// match server here could take, an end of a room live there
	// (fleet_open.go); others, if set, counts the fleet's other
	// relays' slots.
	sendTo string
	others *roomdir.Slots
}

// later queues f to run once the hub's lock is released. h.mu is held.
func (h *roomHub) later(f func()) { h.ops = append(h.ops, f) }

// unlock releases h.mu and runs the directory writes queued while it was
// held, in order. They count as running (opsRunning) from before the
// lock is released until each is done, so that whoever takes the lock
// after it sees them queued or running (idle).
func (h *roomHub) unlock() {
	ops := h.ops
	h.ops = nil
	h.opsRunning.Add(int64(len(ops)))
	h.mu.Unlock()
	for _, f := range ops {
		f()
		h.opsRunning.Add(-1)
	}
}

// idle reports whether no directory write is queued or running: every
// write of a decision made before the call (a reply already sent) has
// reached the directory. It runs the writes a plain Unlock left queued.
func (h *roomHub) idle() bool {
	h.mu.Lock()
	n := int64(len(h.ops))
	h.unlock()
	return n == 0 && h.opsRunning.Load() == 0
}

// needsDirectory reports whether a message of type typ is decided on the
// directory's answer.
func needsDirectory(typ string) bool {
	switch typ {
	case roomproto.MsgHost, roomproto.MsgJoin, roomproto.MsgEnd, roomproto.MsgClaim, roomproto.MsgOpen, roomproto.MsgLookup:
		return true
	}
	return false
}

// precheck refuses m if c's state or its address's failed joins say no
// without asking the directory; false if it did. h.mu is held.
func (h *roomHub) precheck(c *roomConn, m *roomproto.Msg, now time.Time) bool {
	if m.Type == roomproto.MsgClaim && c.role == rolePlayer && c.room != nil && c.room.code == m.Code {
		// Still a player of the room at the relay (its host holds its
		// relay connection): it claims now, as a new member.
		h.leaveRoom(c, now, "")
	}
	if m.Type == roomproto.MsgLookup && len(m.Code) != h.cfg.CodeLength {
		// Not a code this relay draws: the page's lookup of a code still
		// being typed (issue 43 item 6). Answered alike for every such
		// code, before the throttles and uncounted (lookup.go).
		h.fail(c, m.Type, fmt.Errorf("%w: a lookup here checks codes of %d characters (a join checks any)", roomproto.ErrBadCode, h.cfg.CodeLength))
		return false
	}
	if h.drained && (m.Type == roomproto.MsgHost || m.Type == roomproto.MsgOpen) {
		h.fail(c, m.Type, fmt.Errorf("%w: this relay is draining (no new rooms)", roomproto.ErrFull))
		return false
	}
	switch {
	case m.Type == roomproto.MsgHost && c.role == roleServer:
		return h.serverTakes(c, m) && !h.roomsRefused(c, m, false) // serve.go, caps.go
	case m.Type == roomproto.MsgClaim && c.role == roleServer:
		return h.serverReclaims(c, m) && !h.roomsRefused(c, m, false) && !h.throttled(c, m, now) // serve_claim.go
	case m.Type == roomproto.MsgOpen:
		return h.openPrecheck(c, m) && !h.opensRefused(c, m, now) && !h.roomsRefused(c, m, true)
	case m.Type == roomproto.MsgHost && c.role == roleNone && h.roomsRefused(c, m, false):
		return false
	}
	if m.Type != roomproto.MsgEnd && c.role != roleNone {
		h.fail(c, m.Type, fmt.Errorf("%w: already in a room", roomproto.ErrBadMessage))
		return false
	}
	if m.Type != roomproto.MsgHost && h.throttled(c, m, now) {
		return false
	}
	return true
}

// consult asks the directory about m, outside the hub's lock.
func (h *roomHub) consult(c *roomConn, m *roomproto.Msg, now time.Time) dirAnswer {
	var d dirAnswer
	if m.Type != roomproto.MsgHost && m.Type != roomproto.MsgOpen && h.fleet != nil && h.fleet.dir.JoinThrottled(failKey(c.addr), now, h.failLimits()) {
		d.throttled = true
		return d
	}
	dir := h.cfg.Directory
	switch m.Type {
	case roomproto.MsgHost, roomproto.MsgOpen:
		if m.Type == roomproto.MsgOpen && h.placeOpen(c, &d) {
			return d // placed at another relay of the fleet, or full everywhere
		}
		d.rec, d.err = h.claimNew(m.Code, now)
		d.ok, d.claimed = d.err == nil, d.err == nil
	case roomproto.MsgClaim:
		d.rec, d.ok, d.err = dir.Lookup(m.Code, now)
		if d.ok || d.err != nil {
			break
		}
		// A room the directory forgot (its relay restarted, say): the
		// first claimant records it again. A claimant that lost the race
		// to another takes the other's record.
		d.rec = roomdir.Record{Code: m.Code, Key: m.Key}
		if d.err = dir.Claim(d.rec, now); d.err == nil {
			d.ok, d.claimed = true, true
		} else if errors.Is(d.err, roomproto.ErrCodeTaken) {
			d.rec, d.ok, d.err = dir.Lookup(m.Code, now)
			if !d.ok && d.err == nil {
				d.err = fmt.Errorf("%w: %s", roomproto.ErrCodeTaken, m.Code)
			}
		}
	case roomproto.MsgEnd:
		d.rec, d.ok, d.err = dir.Lookup(m.Code, now)
		if d.ok && !d.rec.Ended && d.rec.Key == m.Key {
			if h.endAt(c, &d) {
				break // ended by the room's relay (fleet_open.go)
			}
			dir.End(m.Code, now)
			d.ended = true
		}
	default:
		d.rec, d.ok, d.err = dir.Lookup(m.Code, now)
	}
	if (m.Type == roomproto.MsgJoin || m.Type == roomproto.MsgClaim || m.Type == roomproto.MsgLookup) && d.ok && h.fleet.remoteOwner(d.rec) {
		h.fleet.checkOwner(&d, m)
	}
	if errors.Is(d.err, roomproto.ErrUnavailable) {
		// What failed (Redis's address, say) is the operator's to know,
		// not the client's.
		h.cfg.Log.Debug("relay: room directory unavailable", "type", m.Type, "room", m.Code, "conn", c.id, "err", d.err)
		d.err = roomproto.ErrUnavailable
	}
	return d
}

// claimNew claims code for a new room with a fresh key, or, if code is
// empty, a free code it draws (a few tries find one: 32^6 codes).
func (h *roomHub) claimNew(code string, now time.Time) (roomdir.Record, error) {
	var key [16]byte
	if err := h.draw(key[:]); err != nil {
		return roomdir.Record{}, fmt.Errorf("%w: drawing a key: %w", roomproto.ErrRelayClosed, err)
	}
	rec := roomdir.Record{Code: code, Key: hex.EncodeToString(key[:])}
	if code != "" {
		return rec, h.cfg.Directory.Claim(rec, now)
	}
	var err error
	for range 16 {
		h.randMu.Lock()
		rec.Code, err = roomcode.New(h.cfg.Rand, h.cfg.CodeLength)
		h.randMu.Unlock()
		if err != nil {
			return rec, err
		}
		if err = h.cfg.Directory.Claim(rec, now); !errors.Is(err, roomproto.ErrCodeTaken) {
			break
		}
	}
	return rec, err
}

// newNonce draws a connection's nonce (128 bits as hex), which a match
// server's proof of the server token covers (roomproto.ServerProof).
func (h *roomHub) newNonce() (string, error) {
	var b [16]byte
	if err := h.draw(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// draw fills b from the relay's random source (io.Readers need not be
// safe for concurrent use).
func (h *roomHub) draw(b []byte) error {
	h.randMu.Lock()
	defer h.randMu.Unlock()
	_, err := io.ReadFull(h.cfg.Rand, b)
	return err
}

// abandon undoes what the directory did for a message whose connection
// closed before the decision. h.mu is held.
func (h *roomHub) abandon(d dirAnswer) {
	if d.claimed {
		dir, code := h.cfg.Directory, d.rec.Code
		h.later(func() { dir.Remove(code) })
	}
}

// decide handles a message that needed the directory, on its answer d.
// h.mu is held.
func (h *roomHub) decide(c *roomConn, m *roomproto.Msg, d dirAnswer, now time.Time) {
	if c.killed {
		h.abandon(d)
		if r := h.rooms[d.rec.Code]; d.ended && r != nil {
			h.closeRoom(r, "ended") // ended in the directory already
		}
		return
	}
	if d.throttled {
		h.refuseThrottled(c, m)
		return
	}
	switch m.Type {
	case roomproto.MsgHost:
		h.host(c, m, d, now)
	case roomproto.MsgJoin:
		h.join(c, m, d, now)
	case roomproto.MsgEnd:
		h.end(c, m, d, now)
	case roomproto.MsgClaim:
		h.claim(c, m, d, now)
	case roomproto.MsgOpen:
		h.open(c, m, d, now)
	case roomproto.MsgLookup:
		h.lookup(c, m, d, now) // lookup.go
	}
}

// removeLater removes code from the directory once the lock is released.
// h.mu is held.
func (h *roomHub) removeLater(code string) {
	dir := h.cfg.Directory
	h.later(func() { dir.Remove(code) })
}

// endLater marks code ended in the directory once the lock is released.
// h.mu is held.
func (h *roomHub) endLater(code string, now time.Time) {
	dir := h.cfg.Directory
	h.later(func() { dir.End(code, now) })
}
