package webdoom

import (
	"context"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestRun plays a second of two clients on each relay: a latency per
// client per tic, sorted, and tics sealed. (On a loaded machine the relay may force a
// seal before a late cmd: that tic's latency is then negative, and the
// cmd fabricated.)
func TestRun(t *testing.T) {
	testutil.SkipSockets(t)
	r, err := Run(context.Background(), Config{Players: 2, Tics: 35, Rounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Latency) != 70 || r.Quantile(0.5) > r.Latency[69] || r.Latency[0] > r.Quantile(0.5) {
		t.Fatalf("%d latencies, first %v, p50 %v, max %v", len(r.Latency), r.Latency[0], r.Quantile(0.5), r.Latency[69])
	}
	if r.Stats.Seals == 0 || r.Stats.Seals > 35 {
		t.Errorf("stats %+v", r.Stats)
	}
	if len(r.Bare) != 70 || r.Bare[0] > r.Bare[69] || r.VsBare(0.5) <= 0 {
		t.Fatalf("bare: %d latencies, first %v, max %v", len(r.Bare), r.Bare[0], r.Bare[69])
	}
	if kv := r.Pairs(); len(kv) != 28 || kv[4] != "samples" || kv[5] != 70 || kv[24] != "p50_vs_bare" || kv[26] != "p99_vs_bare" {
		t.Errorf("pairs %v", kv)
	}
}
