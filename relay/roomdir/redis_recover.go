package roomdir

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// Rooms outlive their directory. A Redis that restarts empty (or is
// flushed, or fails over to a replica that lost the last writes) forgets
// every live room while the relays still hold their hosts. The relays
// tell such a Redis by a key of its own:
//
//	PREFIX "epoch"       a random ID, set by the first relay that finds
//	                     it missing; every relay remembers the one it saw
//	                     at its last refresh
//	PREFIX "recovering"  "1" for RecoverGrace (TTL/3: twice RefreshEvery)
//	                     from when a relay that knew an epoch found it
//	                     missing or changed
//
// Every script that decides on a room's absence (Claim, Lookup, Alive)
// first checks the epoch (epochLua): a relay that knew an epoch and finds
// another, or none, has met a Redis that lost its rooms, and starts the
// recovery window. Within it a claim of any code is refused, a lookup
// that finds nothing answers roomproto.ErrUnavailable instead of "no
// room", and nobody is taken for dead (the relays' liveness keys are
// gone too). Each relay's next Refresh (within RefreshEvery) sees the new
// epoch and writes its live rooms back, with their keys, in the same
// script: when the window closes every live relay has re-registered, and
// a code whose host is alive cannot have been taken by another key. A
// relay whose last refresh failed (it lost Redis, perhaps for longer than
// the TTL) writes its missing rooms back the same way.
//
// Not covered: a relay that starts for the first time against a Redis
// that has just restarted, before any older relay touched it, takes the
// empty Redis for a new fleet's (it cannot tell) and sets the epoch
// without a window; the older relays then start the window when they see
// it changed, but a claim made through the new relay before that is let
// through.

// epochLua is the preamble of every script that checks the epoch:
// recovering() returns the current epoch and whether the directory is
// recovering. ARGV[1] the prefix, ARGV[2] the epoch the caller knows
// ("" if none yet), ARGV[3] a new epoch to set if none is, ARGV[4] the
// recovery window (ms).
const epochLua = `
local function recovering()
  local p, known = ARGV[1], ARGV[2]
  local cur = redis.call('GET', p .. 'epoch')
  if not cur then
    redis.call('SET', p .. 'epoch', ARGV[3])
    if known == '' then return ARGV[3], false end
    redis.call('SET', p .. 'recovering', '1', 'PX', ARGV[4])
    return ARGV[3], true
  end
  if known ~= '' and cur ~= known then
    redis.call('SET', p .. 'recovering', '1', 'PX', ARGV[4], 'NX')
    return cur, true
  end
  return cur, redis.call('EXISTS', p .. 'recovering') == 1
end
`

// claimScript sets a new room's entry ARGV[5] for ARGV[6] ms if no entry
// has the code and the directory is not recovering: "ok", "taken" or
// "recovering". KEYS[1] the room.
var claimScript = redis.NewScript(epochLua + `
local _, rec = recovering()
if rec then return 'recovering' end
if redis.call('SET', KEYS[1], ARGV[5], 'PX', ARGV[6], 'NX') then return 'ok' end
return 'taken'
`)

// lookupScript returns {"room", entry}, or {"recovering"} if there is
// none while the directory recovers, or {"none"}. KEYS[1] the room.
var lookupScript = redis.NewScript(epochLua + `
local v = redis.call('GET', KEYS[1])
if v then return {'room', v} end
local _, rec = recovering()
if rec then return {'recovering'} end
return {'none'}
`)

// refreshScript extends the TTL of the live rooms owned by ARGV[5] among
// KEYS, to ARGV[6] ms, and sets the owner's liveness key ARGV[7] for
// ARGV[8] ms. If the epoch is not the one the owner knew, or ARGV[9] is
// "1" (its last refresh failed), a room missing from the directory is
// written back: KEYS[i]'s entry is ARGV[9+i]. It returns {epoch, rooms
// written back}.
var refreshScript = redis.NewScript(epochLua + `
local cur = recovering()
local again = ARGV[2] ~= cur or ARGV[9] == '1'
local n = 0
for i, k in ipairs(KEYS) do
  local v = redis.call('GET', k)
  if v then
    local r = cjson.decode(v)
    if not r.ended and r.owner == ARGV[5] then redis.call('PEXPIRE', k, ARGV[6]) end
  elseif again then
    redis.call('SET', k, ARGV[9 + i], 'PX', ARGV[6])
    n = n + 1
  end
end
redis.call('SET', ARGV[7], '1', 'PX', ARGV[8])
return {cur, n}
`)

// aliveScript returns {0, EXISTS KEYS[1], EXISTS KEYS[2], ...}, or {1}
// while the directory recovers (its liveness keys are not to be trusted).
var aliveScript = redis.NewScript(epochLua + `
local _, rec = recovering()
if rec then return {1} end
local out = {0}
for _, k in ipairs(KEYS) do out[#out + 1] = redis.call('EXISTS', k) end
return out
`)

// RecoverGrace is how long the directory refuses claims and answers
// unknown codes roomproto.ErrUnavailable after a relay found it had lost
// its rooms: TTL/3, twice RefreshEvery, by when every live relay has
// written its rooms back.
func (d *Redis) RecoverGrace() time.Duration { return d.cfg.TTL / 3 }

// epochArgs returns the arguments epochLua reads.
func (d *Redis) epochArgs() []any {
	d.mu.Lock()
	known := d.epoch
	d.mu.Unlock()
	var id [8]byte
	rand.Read(id[:]) // never fails (crypto/rand panics rather)
	return []any{d.cfg.Prefix, known, hex.EncodeToString(id[:]), d.RecoverGrace().Milliseconds()}
}

// unavailable wraps err (a Redis that did not answer, or is recovering)
// in roomproto.ErrUnavailable and ErrRedis.
func unavailable(what string, err error) error {
	return fmt.Errorf("%w: %w: %s: %v", roomproto.ErrUnavailable, ErrRedis, what, err)
}

// errRecovering is what unavailable wraps while the directory recovers.
var errRecovering = errors.New("it came back empty and the relays are registering their rooms again")

// Claim implements Directory: the entry is set only if no entry has
// the code (SET NX), live for TTL, owned by this relay unless rec.Owner
// says otherwise. A Redis that does not answer, or that recovers, refuses
// with an error wrapping roomproto.ErrUnavailable.
func (d *Redis) Claim(rec Record, now time.Time) error {
	owner := rec.Owner
	if owner == "" {
		owner = d.self
	}
	b, _ := json.Marshal(redisRecord{Key: rec.Key, Owner: owner})
	ctx, cancel := d.ctx()
	defer cancel()
	args := append(d.epochArgs(), b, d.cfg.TTL.Milliseconds())
	s, err := claimScript.Run(ctx, d.rdb, []string{d.key(rec.Code)}, args...).Text()
	switch {
	case err != nil:
		return unavailable("claim "+rec.Code, err)
	case s == "recovering":
		return unavailable("claim "+rec.Code, errRecovering)
	case s != "ok":
		return fmt.Errorf("%w: %s", roomproto.ErrCodeTaken, rec.Code)
	}
	return nil
}

// Lookup implements Directory. A Redis that does not answer, or that
// recovers and has no entry for code, fails with an error wrapping
// roomproto.ErrUnavailable: whether there is such a room cannot be told.
func (d *Redis) Lookup(code string, now time.Time) (Record, bool, error) {
	ctx, cancel := d.ctx()
	defer cancel()
	v, err := lookupScript.Run(ctx, d.rdb, []string{d.key(code)}, d.epochArgs()...).StringSlice()
	switch {
	case err != nil:
		return Record{}, false, unavailable("lookup "+code, err)
	case v[0] == "recovering":
		return Record{}, false, unavailable("lookup "+code, errRecovering)
	case v[0] != "room" || len(v) < 2:
		return Record{}, false, nil
	}
	var r redisRecord
	if json.Unmarshal([]byte(v[1]), &r) != nil {
		return Record{}, false, nil
	}
	rec := Record{Code: code, Key: r.Key, Owner: r.Owner, Ended: r.Ended}
	if r.Ended {
		rec.EndedAt = time.UnixMilli(r.EndedAt)
	}
	return rec, true, nil
}

// Refresh extends the TTL of the live rooms among rooms that this relay
// owns (the hub calls it every RefreshEvery with its rooms), and this
// relay's liveness key (redis_guard.go). An ended room, or one another
// relay owns, is left alone. After the directory lost its rooms (a new
// epoch), or after a refresh of this relay failed, the rooms it does not
// hold any more are written back, owned by this relay: again says how
// many.
func (d *Redis) Refresh(rooms []Record) (again int, err error) {
	keys := make([]string, len(rooms))
	args := d.epochArgs()
	d.mu.Lock()
	failed := "0"
	if d.refreshFailed {
		failed = "1"
	}
	d.mu.Unlock()
	args = append(args, d.self, d.cfg.TTL.Milliseconds(), d.aliveKey(d.self), d.aliveTTL().Milliseconds(), failed)
	for i, r := range rooms {
		keys[i] = d.key(r.Code)
		b, _ := json.Marshal(redisRecord{Key: r.Key, Owner: d.self})
		args = append(args, b)
	}
	ctx, cancel := d.ctx()
	defer cancel()
	v, err := refreshScript.Run(ctx, d.rdb, keys, args...).Slice()
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil || len(v) != 2 {
		d.refreshFailed = true
		return 0, fmt.Errorf("%w: refresh: %v", ErrRedis, err)
	}
	epoch, _ := v[0].(string)
	n, _ := v[1].(int64)
	d.epoch, d.refreshFailed = epoch, false
	return int(n), nil
}

// Alive reports which of relays have their liveness key; ok is false if
// Redis did not answer or recovers (then nobody is taken for dead).
func (d *Redis) Alive(relays []string) (alive []bool, ok bool) {
	keys := make([]string, len(relays))
	for i, r := range relays {
		keys[i] = d.aliveKey(r)
	}
	ctx, cancel := d.ctx()
	defer cancel()
	v, err := aliveScript.Run(ctx, d.rdb, keys, d.epochArgs()...).Int64Slice()
	if err != nil || len(v) != len(relays)+1 || v[0] != 0 {
		return nil, false
	}
	alive = make([]bool, len(relays))
	for i := range relays {
		alive[i] = v[i+1] > 0
	}
	return alive, true
}
