package relay

import (
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// Rooms on demand across a fleet of relays. Each relay publishes the
// free slots of the match servers connected to it (those that registered
// "onDemand") in Redis:
//
//	PREFIX "slots:" RELAY   "SERVERS SLOTS USED": this relay's on-demand
//	                        match servers, their slots, and how many of
//	                        them hold a room; expires TTL after its last
//	                        write (rewritten whenever a slot is taken or
//	                        freed, and every TTL/6 with the rooms)
//	PREFIX "slots"          the set of relays that published slots
//
// A lobby's "open" at a relay with no local match server with a free
// slot is placed through Redis: the relay picks the live relay (its
// liveness key present) whose servers have the most free slots and
// forwards the lobby's connection there, exactly as a join of a room
// hosted there (room_fleet.go): the other relay stands the lobby in, runs
// its "open" as for a local lobby (its limits, its pick among its
// servers, the code's claim), and the "opened" (or "full") comes back
// over the lobby's channel, in order. A stand-in's open is never placed
// further: when the slots went meanwhile, the lobby is told "full".

// slotCount is what a relay publishes of its on-demand match servers, or
// a fleet's sum of it.
type slotCount struct {
	servers, slots, used int
}

// free is how many more rooms the servers take.
func (s slotCount) free() int { return s.slots - s.used }

// add returns the sum of s and o.
func (s slotCount) add(o slotCount) slotCount {
	return slotCount{s.servers + o.servers, s.slots + o.slots, s.used + o.used}
}

// fullReason says why an open is refused "full", counting the servers.
func (s slotCount) fullReason(where string) string {
	return fmt.Sprintf("%d match server(s) take rooms on demand %s, %d of %d slots in use", s.servers, where, s.used, s.slots)
}

// pickScript returns the live relay other than ARGV[1] whose published
// slots leave the most free ({relay or "", servers, slots, used} of
// every live relay but ARGV[1]), forgetting relays whose slots expired.
// KEYS[1] the set of relays; ARGV[2] the prefix.
var pickScript = redis.NewScript(`
local best, bestFree = '', 0
local servers, slots, used = 0, 0, 0
for _, r in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if r ~= ARGV[1] then
    local v = redis.call('GET', ARGV[2] .. 'slots:' .. r)
    if not v then
      redis.call('SREM', KEYS[1], r)
    elseif redis.call('EXISTS', ARGV[2] .. 'alive:' .. r) == 1 then
      local s, n, u = string.match(v, '^(%d+) (%d+) (%d+)$')
      if s then
        s, n, u = tonumber(s), tonumber(n), tonumber(u)
        servers, slots, used = servers + s, slots + n, used + u
        if n - u > bestFree then best, bestFree = r, n - u end
      end
    end
  end
end
return {best, servers, slots, used}
`)

func (d *RedisRoomDirectory) slotsKey(relay string) string { return d.cfg.Prefix + "slots:" + relay }

func (d *RedisRoomDirectory) slotsSet() string { return d.cfg.Prefix + "slots" }

// publishSlots writes this relay's on-demand match servers' slots for
// the fleet (for TTL), or takes them out when it has no such server.
func (d *RedisRoomDirectory) publishSlots(s slotCount) error {
	ctx, cancel := d.ctx()
	defer cancel()
	_, err := d.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		if s.servers == 0 {
			p.Del(ctx, d.slotsKey(d.self))
			p.SRem(ctx, d.slotsSet(), d.self)
			return nil
		}
		p.Set(ctx, d.slotsKey(d.self), fmt.Sprintf("%d %d %d", s.servers, s.slots, s.used), d.cfg.TTL)
		p.SAdd(ctx, d.slotsSet(), d.self)
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: publishing slots: %v", ErrRedis, err)
	}
	return nil
}

// pickRelay returns the live relay of the fleet, other than this one,
// whose match servers have the most free slots ("" if none has one), and
// the sum of every other live relay's slots. ok is false if Redis did
// not answer.
func (d *RedisRoomDirectory) pickRelay() (relay string, others slotCount, ok bool) {
	ctx, cancel := d.ctx()
	defer cancel()
	v, err := pickScript.Run(ctx, d.rdb, []string{d.slotsSet()}, d.self, d.cfg.Prefix).Slice()
	if err != nil || len(v) != 4 {
		return "", slotCount{}, false
	}
	relay, _ = v[0].(string)
	n := make([]int, 3)
	for i := range n {
		x, _ := v[i+1].(int64)
		n[i] = int(x)
	}
	return relay, slotCount{n[0], n[1], n[2]}, true
}

// fleetSlots publishes a relay's on-demand slots: one write at a time,
// each of the hub's state when it is made, so the last one written is
// never older than an earlier one.
type fleetSlots struct {
	mu      sync.Mutex // held over a snapshot and its write
	pending bool       // a publication is queued (guarded by hub.mu)
}

// localSlots counts the on-demand match servers connected here, their
// slots and those in use. h.mu is held.
func (h *roomHub) localSlots() slotCount {
	var s slotCount
	for _, c := range h.conns {
		if c.role != roleServer || !c.srv.onDemand || c.killed {
			continue
		}
		s.servers++
		s.slots += c.srv.slots
		s.used += len(c.srv.rooms)
	}
	return s
}

// slotsChanged queues a publication of this relay's slots for the fleet
// (once for any number of changes before it runs). h.mu is held.
func (h *roomHub) slotsChanged() {
	if h.fleet == nil || h.fleet.slots.pending {
		return
	}
	h.fleet.slots.pending = true
	h.later(h.fleet.publishSlots)
}

// publishSlots writes the hub's slots as they are now. Called with
// hub.mu released.
func (l *fleetLink) publishSlots() {
	l.slots.mu.Lock()
	defer l.slots.mu.Unlock()
	l.hub.mu.Lock()
	l.slots.pending = false
	s := l.hub.localSlots()
	l.hub.mu.Unlock()
	if err := l.dir.publishSlots(s); err != nil {
		l.hub.cfg.Log.Debug("relay: publishing slots", "err", err) // rewritten at the next refresh
	}
}

// placeOpen decides where lobby c's open goes when no match server here
// has a free slot: d.sendTo names the relay of the fleet to forward it
// to, or d.others counts the fleet's slots, every one in use. A stand-in
// (an open forwarded here) is not placed further. Called outside the
// hub's lock; reports whether it decided.
func (h *roomHub) placeOpen(c *roomConn, d *dirAnswer) bool {
	if h.fleet == nil || c.standIn {
		return false
	}
	h.mu.Lock()
	s, _, _, _ := h.pickServer()
	h.mu.Unlock()
	if s != nil {
		return false
	}
	relay, others, ok := h.fleet.dir.pickRelay()
	if !ok {
		return false // Redis did not answer: the lobby hears of this relay's servers alone
	}
	d.sendTo, d.others = relay, &others
	return true
}

// openElsewhere forwards lobby c's open to the relay d placed it at, or
// refuses it "full" with the fleet's count. h.mu is held.
func (h *roomHub) openElsewhere(c *roomConn, m *roomproto.Msg, d dirAnswer) {
	if d.sendTo != "" {
		h.serving.forwarded++
		h.cfg.Log.Debug("relay: open placed at another relay", "conn", c.id, "relay", d.sendTo)
		h.fleet.forward(c, d.sendTo, m)
		return
	}
	h.serving.full++
	h.fail(c, m.Type, fmt.Errorf("%w: %s", roomproto.ErrFull, h.localSlots().add(*d.others).fullReason("in the fleet")))
}

// endAt reports whether the end of d.rec, a live room with the right
// key, is for the room's relay to make, another live relay of the fleet
// (d.sendTo): ended there, its host and players hear it at once (a lobby
// that opened a room on demand elsewhere ends it with its key through
// its own relay). A host's end, a stand-in's, or one of a room whose
// relay is dead is made here. Called outside the hub's lock.
func (h *roomHub) endAt(c *roomConn, d *dirAnswer) bool {
	if !h.fleet.remoteOwner(d.rec) || c.standIn {
		return false
	}
	h.mu.Lock()
	role := c.role
	h.mu.Unlock()
	if role != roleNone {
		return false
	}
	alive, ok := h.fleet.dir.alive([]string{d.rec.Owner})
	if !ok || !alive[0] {
		return false
	}
	d.sendTo = d.rec.Owner
	return true
}
