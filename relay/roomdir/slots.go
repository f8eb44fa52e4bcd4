package roomdir

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
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
// slot is placed through Redis (PickRelay): the live relay (its liveness
// key present) whose servers have the most free slots takes it (package
// relay's fleet_open.go).

// Slots is what a relay publishes of its on-demand match servers, or a
// fleet's sum of it.
type Slots struct {
	Servers int // match servers that registered "onDemand"
	Slots   int // their slots
	Used    int // the slots that hold a room
}

// Free is how many more rooms the servers take.
func (s Slots) Free() int { return s.Slots - s.Used }

// Add returns the sum of s and o.
func (s Slots) Add(o Slots) Slots {
	return Slots{s.Servers + o.Servers, s.Slots + o.Slots, s.Used + o.Used}
}

// FullReason says why an open is refused "full", counting the servers.
func (s Slots) FullReason(where string) string {
	return fmt.Sprintf("%d match server(s) take rooms on demand %s, %d of %d slots in use", s.Servers, where, s.Used, s.Slots)
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

func (d *Redis) slotsKey(relay string) string { return d.cfg.Prefix + "slots:" + relay }

func (d *Redis) slotsSet() string { return d.cfg.Prefix + "slots" }

// PublishSlots writes this relay's on-demand match servers' slots for
// the fleet (for TTL), or takes them out when it has no such server.
func (d *Redis) PublishSlots(s Slots) error {
	ctx, cancel := d.ctx()
	defer cancel()
	_, err := d.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		if s.Servers == 0 {
			p.Del(ctx, d.slotsKey(d.self))
			p.SRem(ctx, d.slotsSet(), d.self)
			return nil
		}
		p.Set(ctx, d.slotsKey(d.self), fmt.Sprintf("%d %d %d", s.Servers, s.Slots, s.Used), d.cfg.TTL)
		p.SAdd(ctx, d.slotsSet(), d.self)
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: publishing slots: %v", ErrRedis, err)
	}
	return nil
}

// PickRelay returns the live relay of the fleet, other than this one,
// whose match servers have the most free slots ("" if none has one), and
// the sum of every other live relay's slots. ok is false if Redis did
// not answer.
func (d *Redis) PickRelay() (relay string, others Slots, ok bool) {
	ctx, cancel := d.ctx()
	defer cancel()
	v, err := pickScript.Run(ctx, d.rdb, []string{d.slotsSet()}, d.self, d.cfg.Prefix).Slice()
	if err != nil || len(v) != 4 {
		return "", Slots{}, false
	}
	relay, _ = v[0].(string)
	n := make([]int, 3)
	for i := range n {
		x, _ := v[i+1].(int64)
		n[i] = int(x)
	}
	return relay, Slots{Servers: n[0], Slots: n[1], Used: n[2]}, true
}

// SlotsOf returns the slots relay last published for the fleet (false
// if none are there: expired, taken out, or Redis did not answer).
func (d *Redis) SlotsOf(relay string) (Slots, bool) {
	ctx, cancel := d.ctx()
	defer cancel()
	v, err := d.rdb.Get(ctx, d.slotsKey(relay)).Result()
	if err != nil {
		return Slots{}, false
	}
	f := strings.Fields(v)
	if len(f) != 3 {
		return Slots{}, false
	}
	var n [3]int
	for i, s := range f {
		x, err := strconv.Atoi(s)
		if err != nil {
			return Slots{}, false
		}
		n[i] = x
	}
	return Slots{Servers: n[0], Slots: n[1], Used: n[2]}, true
}
