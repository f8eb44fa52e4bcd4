package relay

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// The hub's guards against squatting and code guessing: joiners whose data
// channel has not opened (pending) are capped per address and expire, and
// failed joins are throttled per address across connections, and, with a
// roomdir.Redis, across the relays of the fleet (roomdir/redis_guard.go).

// roomGuard is the hub's state for its guards. Guarded by the hub's mutex.
type roomGuard struct {
	// pending holds each address's pending joiners, oldest first.
	pending map[string][]*roomConn
	// failed holds a token bucket of failed joins per address key (an
	// IPv4 address, or an IPv6 /64).
	failed map[string]*failBucket
	// budget is the bucket of failed joins from every address
	// (FailBudgetRate); lately the time of each address key's last failed
	// join within FailMemory (at most maxLately keys), pruned at prunedAt.
	budget   *failBucket
	lately   map[string]time.Time
	prunedAt time.Time
}

// maxLately bounds the addresses the relay remembers as having failed a
// join lately; beyond, an address it does not remember is taken as one
// that failed (the budget binds it), so memory stays bounded under a
// guesser with millions of addresses.
const maxLately = 100000

type failBucket struct {
	tokens float64
	last   time.Time
}

// failKey is the address key of the failed-join throttle: one IPv6 host
// holds a whole /64, so that is its key.
func failKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil || !a.Is6() || a.Is4In6() {
		return addr
	}
	p, err := a.Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}

// bucket returns addr's failed-join bucket refilled to now, or nil if it
// has none (a full one).
func (h *roomHub) bucket(addr string, now time.Time) *failBucket {
	b := h.guard.failed[failKey(addr)]
	if b == nil {
		return nil
	}
	b.tokens += now.Sub(b.last).Seconds() * h.cfg.FailedJoinRate
	b.tokens = min(b.tokens, float64(h.cfg.FailedJoinBurst))
	b.last = now
	return b
}

// throttled reports whether c's address has used up its failed joins, or
// failed lately while the relay's budget is spent, and if so refuses m
// (rate_limited, closing c).
func (h *roomHub) throttled(c *roomConn, m *roomproto.Msg, now time.Time) bool {
	if b := h.bucket(c.addr, now); b != nil && b.tokens < 1 {
		h.refuseThrottled(c, m)
		return true
	}
	if h.budgetSpent(c.addr, now) {
		h.stats.joinsThrottled++
		h.fail(c, m.Type, fmt.Errorf("%w: the relay's budget of failed joins from all addresses is spent (%g a second), and %s failed one lately: try again later",
			roomproto.ErrRateLimited, h.cfg.FailBudgetRate, c.addr))
		return true
	}
	return false
}

// failLimits are the relay's failed-join limits, for the fleet.
func (h *roomHub) failLimits() roomdir.FailLimits {
	return roomdir.FailLimits{Rate: h.cfg.FailedJoinRate, Burst: h.cfg.FailedJoinBurst,
		BudgetRate: max(h.cfg.FailBudgetRate, 0), BudgetBurst: h.cfg.FailBudgetBurst, Memory: h.cfg.FailMemory}
}

// budgetBucket returns the relay's failed-join budget refilled to now.
func (h *roomHub) budgetBucket(now time.Time) *failBucket {
	b := h.guard.budget
	if b == nil {
		b = &failBucket{tokens: float64(h.cfg.FailBudgetBurst), last: now}
		h.guard.budget = b
	}
	if now.After(b.last) {
		b.tokens = min(b.tokens+now.Sub(b.last).Seconds()*h.cfg.FailBudgetRate, float64(h.cfg.FailBudgetBurst))
		b.last = now
	}
	return b
}

// budgetSpent reports whether the relay's failed-join budget is spent and
// addr failed a join within FailMemory (or is not remembered while
// maxLately addresses are).
func (h *roomHub) budgetSpent(addr string, now time.Time) bool {
	if h.cfg.FailBudgetRate <= 0 || h.budgetBucket(now).tokens >= 1 {
		return false
	}
	at, ok := h.guard.lately[failKey(addr)]
	if !ok {
		return len(h.guard.lately) >= maxLately
	}
	return now.Sub(at) < h.cfg.FailMemory
}

// noteFailed charges a failed join from addr to the relay's budget and
// remembers the address for FailMemory.
func (h *roomHub) noteFailed(addr string, now time.Time) {
	if h.cfg.FailBudgetRate <= 0 {
		return
	}
	b := h.budgetBucket(now)
	b.tokens = max(b.tokens-1, 0)
	if h.guard.lately == nil {
		h.guard.lately = make(map[string]time.Time)
	}
	if len(h.guard.lately) >= maxLately {
		h.pruneLately(now)
	}
	if len(h.guard.lately) < maxLately {
		h.guard.lately[failKey(addr)] = now
	}
}

// pruneLately forgets the addresses whose last failed join is FailMemory
// old, at most once a tenth of FailMemory unless the map is full.
func (h *roomHub) pruneLately(now time.Time) {
	if len(h.guard.lately) < maxLately && now.Sub(h.guard.prunedAt) < h.cfg.FailMemory/10 {
		return
	}
	h.guard.prunedAt = now
	for k, at := range h.guard.lately {
		if now.Sub(at) >= h.cfg.FailMemory {
			delete(h.guard.lately, k)
		}
	}
}

// refuseThrottled refuses m, from an address that has used up its failed
// joins here or in the fleet (rate_limited, closing c).
func (h *roomHub) refuseThrottled(c *roomConn, m *roomproto.Msg) {
	h.stats.joinsThrottled++
	h.fail(c, m.Type, fmt.Errorf("%w: over %d failed joins from %s, %g more per second",
		roomproto.ErrRateLimited, h.cfg.FailedJoinBurst, c.addr, h.cfg.FailedJoinRate))
}

// joinFailed counts a failed join (no such room, bad key, room ended)
// against c's address.
func (h *roomHub) joinFailed(c *roomConn, now time.Time) {
	h.stats.joinsFailed++
	b := h.bucket(c.addr, now)
	if b == nil {
		if h.guard.failed == nil {
			h.guard.failed = make(map[string]*failBucket)
		}
		b = &failBucket{tokens: float64(h.cfg.FailedJoinBurst), last: now}
		h.guard.failed[failKey(c.addr)] = b
	}
	b.tokens = max(b.tokens-1, 0)
	h.noteFailed(c.addr, now)
	if h.fleet != nil {
		// Counted in Redis too, where every relay of the fleet checks it
		// (this relay's buckets still throttle if Redis does not answer).
		dir, key, lim := h.fleet.dir, failKey(c.addr), h.failLimits()
		h.later(func() { dir.JoinFailed(key, now, lim) })
	}
}

// addPending notes c, which just joined a room, as pending: at
// JoiningPerAddr pending joiners of its address, the oldest goes.
func (h *roomHub) addPending(c *roomConn, now time.Time) {
	if h.guard.pending == nil {
		h.guard.pending = make(map[string][]*roomConn)
	}
	if list := h.guard.pending[c.addr]; len(list) >= h.cfg.JoiningPerAddr {
		h.dropPending(list[0], now, "a newer join from the same address")
	}
	c.joinedAt = now
	h.guard.pending[c.addr] = append(h.guard.pending[c.addr], c)
}

// pendingDone takes c off its address's pending joiners (its data channel
// opened, or it left its room).
func (h *roomHub) pendingDone(c *roomConn) {
	list := h.guard.pending[c.addr]
	for i, p := range list {
		if p == c {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			if list = list[:len(list)-1]; len(list) == 0 {
				delete(h.guard.pending, c.addr)
			} else {
				h.guard.pending[c.addr] = list
			}
			return
		}
	}
}

// dropPending ends a pending joiner: it leaves its room (the host is told)
// and its connection closes with join_timeout.
func (h *roomHub) dropPending(c *roomConn, now time.Time, why string) {
	h.stats.pendingDropped++
	h.leaveRoom(c, now, "")
	h.send(c, ptr(roomproto.ErrorMsg(roomproto.ErrCodeJoinTimeout, roomproto.MsgJoin, roomproto.ErrJoinTimeout.Error()+": "+why)))
	h.kill(c, websocket.StatusPolicyViolation, roomproto.ErrCodeJoinTimeout+": "+why)
}

// makeJoinRoom lets a joiner into r when JoiningPerRoom players are
// already pending there, by dropping the oldest of them if it has been
// pending for JoinGrace or more; false if none has.
func (h *roomHub) makeJoinRoom(r *room, now time.Time) bool {
	var oldest *roomConn
	for _, p := range r.players {
		if !p.connected && (oldest == nil || p.joinedAt.Before(oldest.joinedAt)) {
			oldest = p
		}
	}
	if oldest == nil || now.Sub(oldest.joinedAt) < h.cfg.JoinGrace {
		return false
	}
	h.dropPending(oldest, now, "the room has joiners waiting")
	return true
}

// tickGuards drops pending joiners older than JoinTimeout and forgets
// failed-join buckets that have filled up again.
func (h *roomHub) tickGuards(now time.Time) {
	var late []*roomConn
	for _, list := range h.guard.pending {
		for _, c := range list {
			if now.Sub(c.joinedAt) >= h.cfg.JoinTimeout {
				late = append(late, c)
			}
		}
	}
	for _, c := range late {
		h.dropPending(c, now, fmt.Sprintf("data channel not open within %v", h.cfg.JoinTimeout))
	}
	for k := range h.guard.failed {
		if b := h.bucket(k, now); b != nil && b.tokens >= float64(h.cfg.FailedJoinBurst) {
			delete(h.guard.failed, k)
		}
	}
	h.pruneLately(now)
}

// RoomStats counts what the relay's guards did.
type RoomStats struct {
	// Conns and Rooms are the open connections and live rooms.
	Conns, Rooms int
	// Pending is how many joiners wait for their data channel.
	Pending int
	// PendingDropped counts pending joiners dropped (JoinTimeout,
	// JoiningPerAddr, JoinGrace).
	PendingDropped uint64
	// JoinsFailed counts joins that named no live room or a bad key,
	// and lookups that found no room (lookup.go: they count as failed
	// joins); JoinsThrottled the joins and lookups refused because their
	// address failed too often (FailedJoinRate, FailedJoinBurst) or the
	// budget was spent; LookupsFound the lookups answered "found".
	JoinsFailed, JoinsThrottled uint64
	LookupsFound                uint64
	// StandIns is how many players of other relays of the fleet this
	// relay stands in for in its rooms (fleet.go); DeadRelayDrops
	// counts the stand-ins dropped and the forwarded connections closed
	// because their relay was found dead.
	StandIns       int
	DeadRelayDrops uint64
	// RoomsRegisteredAgain counts this relay's live rooms it wrote back
	// to the fleet's directory after the directory lost them (a Redis
	// restarted empty: roomdir/redis_recover.go); DirectoryUnavailable
	// the joins, claims and ends answered roomproto.ErrUnavailable.
	RoomsRegisteredAgain int
	DirectoryUnavailable uint64
	// Stalls counts the relay's own stalls (gaps between runs of its
	// timer beyond max(TickInterval, PingInterval)) and Stalled sums
	// what of them was not counted against its hosts (stall.go).
	Stalls  uint64
	Stalled time.Duration
}

// hubStats is the part of RoomStats the hub counts.
type hubStats struct {
	pendingDropped, joinsFailed, joinsThrottled uint64
	lookupsFound                                uint64
	deadRelayDrops                              uint64
	roomsRegisteredAgain                        int
	directoryUnavailable                        uint64
	stalls                                      uint64
	stalled                                     time.Duration
}

// roomStats returns the hub's RoomStats.
func (h *roomHub) roomStats() RoomStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := RoomStats{Conns: len(h.conns), Rooms: len(h.rooms),
		PendingDropped: h.stats.pendingDropped, JoinsFailed: h.stats.joinsFailed,
		JoinsThrottled: h.stats.joinsThrottled, LookupsFound: h.stats.lookupsFound, DeadRelayDrops: h.stats.deadRelayDrops,
		RoomsRegisteredAgain: h.stats.roomsRegisteredAgain, DirectoryUnavailable: h.stats.directoryUnavailable,
		Stalls: h.stats.stalls, Stalled: h.stats.stalled}
	if h.fleet != nil {
		st.StandIns = len(h.fleet.standIns)
	}
	for _, list := range h.guard.pending {
		st.Pending += len(list)
	}
	return st
}

// RoomStats returns the relay's counters.
func (s *RoomServer) RoomStats() RoomStats { return s.hub.roomStats() }
