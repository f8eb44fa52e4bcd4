package roomdir

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testutil"
)

// t0 is the made-up time the bucket tests start at.
var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// TestRedisFailBucket: the fleet's failed-join bucket of an address is
// one for every directory of a Redis, refills at its rate in the callers'
// time (a caller whose clock is behind refills nothing), and its key
// expires once the bucket would be full again.
func TestRedisFailBucket(t *testing.T) {
	url := testutil.StartRedis(t)
	ctx := t.Context()
	a, err := NewRedis(ctx, url, RedisConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewRedis(ctx, url, RedisConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const rate, burst = 2.0, 3
	for i := range burst {
		if a.JoinThrottled("10.0.0.9", t0, rate, burst) {
			t.Fatalf("throttled after %d failed joins of %d", i, burst)
		}
		a.JoinFailed("10.0.0.9", t0, rate, burst)
	}
	if !b.JoinThrottled("10.0.0.9", t0, rate, burst) {
		t.Fatal("another relay does not see the address's failed joins")
	}
	if b.JoinThrottled("10.0.0.8", t0, rate, burst) {
		t.Fatal("another address is throttled")
	}
	if !b.JoinThrottled("10.0.0.9", t0.Add(-time.Second), rate, burst) {
		t.Fatal("a clock behind refilled the bucket")
	}
	if b.JoinThrottled("10.0.0.9", t0.Add(500*time.Millisecond), rate, burst) {
		t.Fatal("no token back after 1/rate")
	}
	// Empty: full again in burst/rate = 1.5 s, then a second of margin.
	pttl := a.rdb.PTTL(ctx, a.failKey("10.0.0.9")).Val()
	if pttl <= 0 || pttl > 2500*time.Millisecond {
		t.Fatalf("the bucket's key expires in %v, want (0, 2.5 s]", pttl)
	}
}
