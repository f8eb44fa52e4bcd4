package relay

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// The hub's caps on rooms, so that no one holds them all: the relay's
// rooms in all (MaxRooms), the rooms hosted from one address
// (RoomsPerAddr: a player's host, or a match server's "host" and
// "claim"; rooms opened on demand count against their opener's opens
// instead), and the opens of one address (a token bucket, OpenRate and
// OpenBurst, charged for each open placed on a match server) and of one
// connection (OpensPerConn).

// roomCaps is the hub's state for its caps. Guarded by the hub's mutex.
type roomCaps struct {
	// perAddr counts the live rooms hosted from each address (room.capAddr).
	perAddr map[string]int
	// opens holds a token bucket of opens per address key (failKey).
	opens map[string]*failBucket
}

// roomsRefused reports whether a new room may not be made for c (a host,
// a match server's host or claim, or lobby c's open when onDemand): the
// relay's MaxRooms, or c's address's RoomsPerAddr; if so, c is told
// (too_many_rooms; the connection stays open). h.mu is held.
func (h *roomHub) roomsRefused(c *roomConn, m *roomproto.Msg, onDemand bool) bool {
	switch {
	case len(h.rooms) >= h.cfg.MaxRooms:
		h.fail(c, m.Type, fmt.Errorf("%w: this relay holds %d rooms, its most", roomproto.ErrTooManyRooms, len(h.rooms)))
		return true
	case !onDemand && h.countsRooms(c) && h.caps.perAddr[c.addr] >= h.cfg.RoomsPerAddr:
		h.fail(c, m.Type, fmt.Errorf("%w: %d rooms hosted from %s, its most", roomproto.ErrTooManyRooms, h.caps.perAddr[c.addr], c.addr))
		return true
	}
	return false
}

// countsRooms reports whether the rooms c hosts count against its
// address's RoomsPerAddr: every host's, but an authenticated match
// server's (its owner vouched for it with the relay's server token).
func (h *roomHub) countsRooms(c *roomConn) bool {
	return c.role != roleServer || !c.srv.trusted
}

// countRoom counts r, just made for host c, against c's address. h.mu is
// held.
func (h *roomHub) countRoom(r *room, c *roomConn) {
	if !h.countsRooms(c) {
		return
	}
	if h.caps.perAddr == nil {
		h.caps.perAddr = make(map[string]int)
	}
	r.capAddr = c.addr
	h.caps.perAddr[c.addr]++
}

// uncountRoom takes r, which left the hub, off its address's count.
// h.mu is held.
func (h *roomHub) uncountRoom(r *room) {
	if r.capAddr == "" {
		return
	}
	if h.caps.perAddr[r.capAddr]--; h.caps.perAddr[r.capAddr] <= 0 {
		delete(h.caps.perAddr, r.capAddr)
	}
	r.capAddr = ""
}

// openBucket returns the open bucket of c's address refilled to now
// (made full if it had none).
func (h *roomHub) openBucket(c *roomConn, now time.Time) *failBucket {
	k := failKey(c.addr)
	b := h.caps.opens[k]
	if b == nil {
		if h.caps.opens == nil {
			h.caps.opens = make(map[string]*failBucket)
		}
		b = &failBucket{tokens: float64(h.cfg.OpenBurst), last: now}
		h.caps.opens[k] = b
	}
	b.tokens = min(b.tokens+now.Sub(b.last).Seconds()*h.cfg.OpenRate, float64(h.cfg.OpenBurst))
	b.last = now
	return b
}

// opensRefused reports whether lobby c may not open one more room now:
// its connection asked OpensPerConn already, or its address spent its
// opens; if so, c is refused (rate_limited, closing it). h.mu is held.
func (h *roomHub) opensRefused(c *roomConn, m *roomproto.Msg, now time.Time) bool {
	switch {
	case c.opens >= h.cfg.OpensPerConn:
		h.fail(c, m.Type, fmt.Errorf("%w: %d opens on one connection", roomproto.ErrRateLimited, c.opens))
		return true
	case h.openBucket(c, now).tokens < 1:
		h.fail(c, m.Type, fmt.Errorf("%w: over %d opens from %s, %g more per second",
			roomproto.ErrRateLimited, h.cfg.OpenBurst, c.addr, h.cfg.OpenRate))
		return true
	}
	return false
}

// chargeOpen spends one of c's address's opens and one of its
// connection's: its open was placed on a match server. h.mu is held.
func (h *roomHub) chargeOpen(c *roomConn, now time.Time) {
	c.opens++
	b := h.openBucket(c, now)
	b.tokens = max(b.tokens-1, 0)
}

// tickCaps forgets open buckets that have filled up again. h.mu is held.
func (h *roomHub) tickCaps(now time.Time) {
	for k, b := range h.caps.opens {
		b.tokens = min(b.tokens+now.Sub(b.last).Seconds()*h.cfg.OpenRate, float64(h.cfg.OpenBurst))
		b.last = now
		if b.tokens >= float64(h.cfg.OpenBurst) {
			delete(h.caps.opens, k)
		}
	}
}
