package roomdir

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
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
	lim := FailLimits{Rate: rate, Burst: burst}
	for i := range burst {
		if a.JoinThrottled("10.0.0.9", t0, lim) {
			t.Fatalf("throttled after %d failed joins of %d", i, burst)
		}
		a.JoinFailed("10.0.0.9", t0, lim)
	}
	if !b.JoinThrottled("10.0.0.9", t0, lim) {
		t.Fatal("another relay does not see the address's failed joins")
	}
	if b.JoinThrottled("10.0.0.8", t0, lim) {
		t.Fatal("another address is throttled")
	}
	if !b.JoinThrottled("10.0.0.9", t0.Add(-time.Second), lim) {
		t.Fatal("a clock behind refilled the bucket")
	}
	if b.JoinThrottled("10.0.0.9", t0.Add(500*time.Millisecond), lim) {
		t.Fatal("no token back after 1/rate")
	}
	// Empty: full again in burst/rate = 1.5 s, then a second of margin.
	pttl := a.rdb.PTTL(ctx, a.failKey("10.0.0.9")).Val()
	if pttl <= 0 || pttl > 2500*time.Millisecond {
		t.Fatalf("the bucket's key expires in %v, want (0, 2.5 s]", pttl)
	}
}

// TestRedisFailBudget: the fleet's budget of failed joins is one for
// every directory of a Redis; once failed joins from several addresses
// spent it, an address that failed within Memory is throttled through
// any relay and one that did not is not; a refilled token lets the
// marked address in again.
func TestRedisFailBudget(t *testing.T) {
	url := testutil.StartRedis(t)
	a, err := NewRedis(t.Context(), url, RedisConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewRedis(t.Context(), url, RedisConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	lim := FailLimits{Rate: 1, Burst: 20, BudgetRate: 1, BudgetBurst: 3, Memory: time.Minute}
	for i := range 3 {
		a.JoinFailed(fmt.Sprintf("10.1.0.%d", i+1), t0, lim)
	}
	if !b.JoinThrottled("10.1.0.1", t0, lim) {
		t.Fatal("an address that failed lately is not throttled with the fleet's budget spent")
	}
	if b.JoinThrottled("10.1.9.9", t0, lim) {
		t.Fatal("an address that never failed is throttled by the fleet's budget")
	}
	if b.JoinThrottled("10.1.0.1", t0.Add(1500*time.Millisecond), lim) {
		t.Fatal("throttled with a token of the budget back")
	}
	off := lim
	off.BudgetRate = 0
	if b.JoinThrottled("10.1.0.1", t0, off) {
		t.Fatal("throttled by the budget with the budget off")
	}
}
