package roomdir

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The fleet's shared state beyond the rooms themselves: every relay's
// failed-join throttle per address, and every relay's liveness.
//
//	PREFIX "fail:" ADDRKEY   hash {t: tokens, l: last refill, unix ms}: the
//	                         address's failed-join token bucket, shared by
//	                         every relay; it expires once it would be full
//	                         again, so the keys are bounded by the
//	                         addresses that failed in the last
//	                         FailedJoinBurst/FailedJoinRate seconds
//	PREFIX "alive:" RELAY    "1", set by the relay every TTL/6 to expire
//	                         after 2·TTL/3: a relay whose key is gone is
//	                         dead, and the others drop the players they
//	                         stood in for it (relay/fleet.go) within TTL
//
// The room entries are changed by scripts that read them first, so that
// a late write never undoes an earlier decision of another relay (or of
// another goroutine of the same relay, since the hub writes outside its
// lock: relay/hub_dir.go): End marks only a live room, Remove forgets only
// a live room, Refresh extends only the live rooms the relay owns.

// failScript takes a failed join from the address's bucket (ARGV[4] = 1)
// or only reads it (0), refilled to now; it returns the tokens left.
// KEYS[1] the bucket; ARGV: now (unix ms), rate per second, burst, take.
var failScript = redis.NewScript(`
local now, rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local v = redis.call('HMGET', KEYS[1], 't', 'l')
local tokens, last = burst, now
if v[1] then
  tokens, last = tonumber(v[1]), tonumber(v[2])
  if now > last then
    tokens = math.min(burst, tokens + (now - last) / 1000 * rate)
    last = now
  end
end
if ARGV[4] == '1' then
  tokens = math.max(tokens - 1, 0)
  redis.call('HSET', KEYS[1], 't', tostring(tokens), 'l', tostring(last))
  redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
end
return tostring(tokens)
`)

// endScript marks a live room ended. KEYS[1] the room; ARGV: ended at
// (unix ms), how long to remember it (ms).
var endScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local r = cjson.decode(v)
if r.ended then return 0 end
r.ended = true
r.endedAt = tonumber(ARGV[1])
redis.call('SET', KEYS[1], cjson.encode(r), 'PX', ARGV[2])
return 1
`)

// removeScript forgets a live room owned by ARGV[1] (a room another
// relay adopted, or a match server claimed back there, is that relay's
// to forget). KEYS[1] the room.
var removeScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local r = cjson.decode(v)
if r.ended or (r.owner and r.owner ~= ARGV[1]) then return 0 end
return redis.call('DEL', KEYS[1])
`)

// adoptScript makes ARGV[1] the owner of a live room owned by ARGV[2] (a
// relay found dead), for ARGV[3] ms. KEYS[1] the room.
var adoptScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local r = cjson.decode(v)
if r.ended or r.owner ~= ARGV[2] then return 0 end
r.owner = ARGV[1]
redis.call('SET', KEYS[1], cjson.encode(r), 'PX', ARGV[3])
return 1
`)

// Adopt makes this relay the owner of the live room under code if dead
// still owns it (a claimant of a room whose relay died takes it over
// here); false if it was not so (another relay adopted it first).
func (d *Redis) Adopt(code, dead string) bool {
	ctx, cancel := d.ctx()
	defer cancel()
	n, err := adoptScript.Run(ctx, d.rdb, []string{d.key(code)}, d.self, dead, d.cfg.TTL.Milliseconds()).Int()
	return err == nil && n == 1
}

func (d *Redis) failKey(addrKey string) string { return d.cfg.Prefix + "fail:" + addrKey }

func (d *Redis) aliveKey(relay string) string { return d.cfg.Prefix + "alive:" + relay }

// failTokens runs failScript; ok is false if Redis did not answer.
func (d *Redis) failTokens(addrKey string, now time.Time, rate float64, burst int, take bool) (float64, bool) {
	ctx, cancel := d.ctx()
	defer cancel()
	t := "0"
	if take {
		t = "1"
	}
	s, err := failScript.Run(ctx, d.rdb, []string{d.failKey(addrKey)}, now.UnixMilli(),
		strconv.FormatFloat(rate, 'g', -1, 64), burst, t).Text()
	if err != nil {
		return 0, false
	}
	tokens, err := strconv.ParseFloat(s, 64)
	return tokens, err == nil
}

// JoinThrottled reports whether the fleet has counted burst failed joins
// from addrKey (an address, or an IPv6 /64) not yet refilled at rate per
// second by now. A Redis that does not answer throttles nothing (each
// relay's own bucket still does).
func (d *Redis) JoinThrottled(addrKey string, now time.Time, rate float64, burst int) bool {
	tokens, ok := d.failTokens(addrKey, now, rate, burst, false)
	return ok && tokens < 1
}

// JoinFailed counts a failed join from addrKey in the fleet's bucket.
func (d *Redis) JoinFailed(addrKey string, now time.Time, rate float64, burst int) {
	d.failTokens(addrKey, now, rate, burst, true)
}

// aliveTTL is how long a relay's liveness key outlives its last refresh
// (every RefreshEvery, when the others check theirs too): a dead relay is
// noticed within aliveTTL + RefreshEvery = 5/6 of TTL (plus a timer
// tick), and a relay that misses a refresh or two is not taken for dead.
func (d *Redis) aliveTTL() time.Duration { return d.cfg.TTL * 2 / 3 }

// DropAlive deletes this relay's liveness key (a relay closing cleanly).
func (d *Redis) DropAlive() {
	ctx, cancel := context.WithTimeout(context.Background(), d.cfg.OpTimeout)
	defer cancel()
	d.rdb.Del(ctx, d.aliveKey(d.self))
}
