package webdoom

import (
	"context"
	"testing"

	"github.com/rewindnet/rewind/internal/testutil"
)

// TestRun plays a second of two clients: a latency per client per tic,
// sorted, and tics sealed. (On a loaded machine the relay may force a
// seal before a late cmd: that tic's latency is then negative, and the
// cmd fabricated.)
func TestRun(t *testing.T) {
	testutil.SkipSockets(t)
	r, err := Run(context.Background(), Config{Players: 2, Tics: 35})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Latency) != 70 || r.Quantile(0.5) > r.Latency[69] || r.Latency[0] > r.Quantile(0.5) {
		t.Fatalf("%d latencies, first %v, p50 %v, max %v", len(r.Latency), r.Latency[0], r.Quantile(0.5), r.Latency[69])
	}
	if r.Stats.Seals == 0 || r.Stats.Seals > 35 {
		t.Errorf("stats %+v", r.Stats)
	}
	if kv := r.Pairs(); len(kv) != 18 || kv[4] != "samples" || kv[5] != 70 {
		t.Errorf("pairs %v", kv)
	}
}
