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
//	PREFIX "failbudget"      the same for the fleet's failed joins from
//	                         every address together (FailLimits.Budget*)
//	PREFIX "failed:" ADDRKEY "1" for FailLimits.Memory after the address's
//	                         last failed join: while the fleet's budget is
//	                         spent, such an address is throttled
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

// failScript reads the failed-join buckets of an address and of the
// fleet, refilled to now, and with ARGV[4] = 1 takes a failed join from
// both and marks the address as having failed (for ARGV[7] ms). It returns
// {the address's tokens, the fleet's tokens, 1 if the address was marked}.
// KEYS: the address's bucket, the fleet's bucket, the address's mark;
// ARGV: now (unix ms), rate per second, burst, take, the fleet's rate and
// burst (rate 0: no fleet budget), the mark's life (ms).
var failScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local function bucket(k, rate, burst)
  local v = redis.call('HMGET', k, 't', 'l')
  local tokens, last = burst, now
  if v[1] then
    tokens, last = tonumber(v[1]), tonumber(v[2])
    if now > last then
      tokens = math.min(burst, tokens + (now - last) / 1000 * rate)
      last = now
    end
  end
  return tokens, last
end
local function take(k, tokens, last, rate, burst)
  tokens = math.max(tokens - 1, 0)
  redis.call('HSET', k, 't', tostring(tokens), 'l', tostring(last))
  redis.call('PEXPIRE', k, math.ceil((burst - tokens) / rate * 1000) + 1000)
  return tokens
end
local rate, burst = tonumber(ARGV[2]), tonumber(ARGV[3])
local frate, fburst = tonumber(ARGV[5]), tonumber(ARGV[6])
local t, l = bucket(KEYS[1], rate, burst)
local ft, fl = fburst, now
if frate > 0 then ft, fl = bucket(KEYS[2], frate, fburst) end
local marked = redis.call('EXISTS', KEYS[3])
if ARGV[4] == '1' then
  t = take(KEYS[1], t, l, rate, burst)
  if frate > 0 then
    ft = take(KEYS[2], ft, fl, frate, fburst)
    redis.call('SET', KEYS[3], '1', 'PX', ARGV[7])
  end
end
return {tostring(t), tostring(ft), marked}
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

// rekeyScript sets the key of a live room (its TTL kept). KEYS[1] the
// room; ARGV[1] the new key.
var rekeyScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local r = cjson.decode(v)
if r.ended then return 0 end
r.key = ARGV[1]
redis.call('SET', KEYS[1], cjson.encode(r), 'KEEPTTL')
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

// FailLimits are the failed-join throttles a relay asks the fleet to
// apply (relay.RoomConfig's FailedJoin* and FailBudget*).
type FailLimits struct {
	// Rate and Burst are an address's bucket of failed joins.
	Rate  float64
	Burst int
	// BudgetRate and BudgetBurst are the fleet's bucket of failed joins
	// from every address together (BudgetRate 0: none); Memory is how
	// long an address that failed a join stays subject to it.
	BudgetRate  float64
	BudgetBurst int
	Memory      time.Duration
}

// failTokens runs failScript: the address's tokens, the fleet's, and
// whether the address failed within Memory; ok is false if Redis did not
// answer.
func (d *Redis) failTokens(addrKey string, now time.Time, lim FailLimits, take bool) (tokens, fleet float64, marked, ok bool) {
	ctx, cancel := d.ctx()
	defer cancel()
	t := "0"
	if take {
		t = "1"
	}
	budget := max(lim.BudgetRate, 0)
	v, err := failScript.Run(ctx, d.rdb, []string{d.failKey(addrKey), d.cfg.Prefix + "failbudget", d.cfg.Prefix + "failed:" + addrKey},
		now.UnixMilli(), strconv.FormatFloat(lim.Rate, 'g', -1, 64), lim.Burst, t,
		strconv.FormatFloat(budget, 'g', -1, 64), max(lim.BudgetBurst, 1), max(lim.Memory.Milliseconds(), 1)).Slice()
	if err != nil || len(v) != 3 {
		return 0, 0, false, false
	}
	ts, _ := v[0].(string)
	fs, _ := v[1].(string)
	m, _ := v[2].(int64)
	tokens, err1 := strconv.ParseFloat(ts, 64)
	fleet, err2 := strconv.ParseFloat(fs, 64)
	return tokens, fleet, m == 1, err1 == nil && err2 == nil
}

// JoinThrottled reports whether the fleet refuses a join or an end from
// addrKey (an address, or an IPv6 /64) at now: it has counted Burst
// failed joins from it not yet refilled at Rate per second, or the
// fleet's budget is spent and the address failed within Memory. A Redis
// that does not answer throttles nothing (each relay's own buckets still
// do).
func (d *Redis) JoinThrottled(addrKey string, now time.Time, lim FailLimits) bool {
	tokens, fleet, marked, ok := d.failTokens(addrKey, now, lim, false)
	return ok && (tokens < 1 || (lim.BudgetRate > 0 && fleet < 1 && marked))
}

// JoinFailed counts a failed join from addrKey in the address's and the
// fleet's buckets, and marks the address for Memory.
func (d *Redis) JoinFailed(addrKey string, now time.Time, lim FailLimits) {
	d.failTokens(addrKey, now, lim, true)
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
