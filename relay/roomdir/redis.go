package roomdir

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisConfig configures a Redis. The zero value means every
// default.
type RedisConfig struct {
	// TTL is how long a live room stays in the directory without its
	// relay refreshing it (default 15 s): a relay that dies takes its
	// rooms with it within TTL, and the players it forwarded to the
	// others' rooms are dropped there within TTL (redis_guard.go).
	// Each relay refreshes its rooms and its liveness every TTL/6.
	TTL time.Duration
	// Remember is how long an ended room is remembered (default 5 min,
	// relay.RoomConfig.EndedRemember's default).
	Remember time.Duration
	// Prefix begins every key and channel (default "rewind:").
	Prefix string
	// ConnectWait is how long NewRedis retries a Redis that
	// does not answer yet (default 10 s).
	ConnectWait time.Duration
	// OpTimeout bounds one Redis command (default 2 s).
	OpTimeout time.Duration
}

func (c RedisConfig) withDefaults() RedisConfig {
	if c.TTL <= 0 {
		c.TTL = 15 * time.Second
	}
	if c.Remember <= 0 {
		c.Remember = 5 * time.Minute
	}
	if c.Prefix == "" {
		c.Prefix = "rewind:"
	}
	if c.ConnectWait <= 0 {
		c.ConnectWait = 10 * time.Second
	}
	if c.OpTimeout <= 0 {
		c.OpTimeout = 2 * time.Second
	}
	return c
}

// Redis is a Directory in Redis, shared by every relay
// process of a fleet: code → the room's key, its owning relay (the one
// its host is connected to), whether it ended. A live room's entry
// expires TTL after its owner last refreshed it; an ended room's after
// Remember. Each relay process has its own ID (Self), which the rooms it
// hosts carry as their Owner; a relay that finds a room owned by another
// forwards the player's signaling there over Redis pub/sub (package relay, fleet.go).
// Methods are safe for concurrent use.
type Redis struct {
	cfg  RedisConfig
	rdb  *redis.Client
	self string

	mu            sync.Mutex
	epoch         string // the directory's epoch at the last refresh (redis_recover.go)
	refreshFailed bool   // the last refresh did not reach Redis
}

// redisRecord is a room's entry, as JSON.
type redisRecord struct {
	Key     string `json:"key"`
	Owner   string `json:"owner,omitempty"`
	Ended   bool   `json:"ended,omitempty"`
	EndedAt int64  `json:"endedAt,omitempty"` // unix ms
}

// NewRedis connects to the Redis at url
// ("redis://HOST:PORT/DB"), retrying for cfg.ConnectWait while it does
// not answer (a relay started beside its Redis), and returns a directory
// with a fresh relay ID. It fails with an error wrapping ErrRedis.
func NewRedis(ctx context.Context, url string, cfg RedisConfig) (*Redis, error) {
	cfg = cfg.withDefaults()
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrRedis, url, err)
	}
	opts.MaxRetries = 1
	rdb := redis.NewClient(opts)
	deadline := time.Now().Add(cfg.ConnectWait)
	for {
		pctx, cancel := context.WithTimeout(ctx, cfg.OpTimeout)
		err = rdb.Ping(pctx).Err()
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			rdb.Close()
			return nil, fmt.Errorf("%w: %s did not answer within %v: %v", ErrRedis, url, cfg.ConnectWait, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	var id [8]byte
	rand.Read(id[:]) // never fails (crypto/rand panics rather)
	return &Redis{cfg: cfg, rdb: rdb, self: hex.EncodeToString(id[:])}, nil
}

// Self returns this relay process's ID, the Owner of the rooms it hosts.
func (d *Redis) Self() string { return d.self }

// Client returns the Redis client (the fleet's pub/sub uses it).
func (d *Redis) Client() *redis.Client { return d.rdb }

// Close closes the connection to Redis. The rooms this relay owns stay
// until their TTL runs out.
func (d *Redis) Close() error { return d.rdb.Close() }

func (d *Redis) key(code string) string { return d.cfg.Prefix + "room:" + code }

func (d *Redis) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d.cfg.OpTimeout)
}

// End implements Directory: the entry of a live room is marked ended
// and kept for Remember (atomically: endScript).
func (d *Redis) End(code string, now time.Time) {
	ctx, cancel := d.ctx()
	defer cancel()
	endScript.Run(ctx, d.rdb, []string{d.key(code)}, now.UnixMilli(), d.cfg.Remember.Milliseconds())
}

// Rekey implements Rekeyer: the entry of a live room takes the new key,
// its TTL kept (atomically: rekeyScript).
func (d *Redis) Rekey(code, key string) {
	ctx, cancel := d.ctx()
	defer cancel()
	rekeyScript.Run(ctx, d.rdb, []string{d.key(code)}, key)
}

// Remove implements Directory: a live room's entry is deleted if
// this relay owns it; an ended room stays remembered, a room another
// relay owns now (adopted, or claimed back by its match server there)
// stays its (removeScript).
func (d *Redis) Remove(code string) {
	ctx, cancel := d.ctx()
	defer cancel()
	removeScript.Run(ctx, d.rdb, []string{d.key(code)}, d.self)
}

// RefreshEvery returns how often the owner refreshes its rooms and its
// liveness: TTL/6.
func (d *Redis) RefreshEvery() time.Duration { return d.cfg.TTL / 6 }

// Count returns how many of codes the directory holds (live or ended), in
// one round trip: what `rewind-bench relays` polls to see a dead relay's
// rooms leave.
func (d *Redis) Count(codes []string) (int, error) {
	keys := make([]string, len(codes))
	for i, c := range codes {
		keys[i] = d.key(c)
	}
	if len(keys) == 0 {
		return 0, nil
	}
	ctx, cancel := d.ctx()
	defer cancel()
	n, err := d.rdb.Exists(ctx, keys...).Result()
	if err != nil {
		return 0, fmt.Errorf("%w: count: %v", ErrRedis, err)
	}
	return int(n), nil
}
