package join

import (
	"context"
	"testing"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// TestRun plays a short sand match with a late joiner: it verified, with
// fewer bytes than the world's, and runs as far ahead and rolls back as
// deep as the others. Also at no latency, where the small world comes
// whole with the welcome before any tick after it: the joiner once ran a
// second ahead then.
func TestRun(t *testing.T) {
	for name, link := range map[string]transport.LinkConfig{
		"lossy":    {Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02},
		"loopback": {},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Run(context.Background(), Config{Players: 3, Grid: 64, Before: time.Second, Link: link, Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !r.VerifiedEqual || r.WorldBytes <= 0 || r.ZstdBytes <= 0 || r.Join.Bytes == 0 || r.Join.FirstVerified <= 0 ||
				r.Join.Bytes > uint64(r.WorldBytes) {
				t.Errorf("verified_equal %v, world %d, zstd %d, join %+v", r.VerifiedEqual, r.WorldBytes, r.ZstdBytes, r.Join)
			}
			if r.JoinerLead <= 0 || r.Lead <= 0 || r.JoinerLead > r.Lead+3 || r.JoinerLead < r.Lead-3 {
				t.Errorf("the joiner leads by %.1f ticks, the others by %.1f", r.JoinerLead, r.Lead)
			}
			if r.Joiner.MaxRollback > r.Depth+3 || r.Joiner.Stalls != 0 || r.FullyVerified != 4 {
				t.Errorf("joiner rollback %d (others %d), %d stalls, %d fully verified", r.Joiner.MaxRollback, r.Depth, r.Joiner.Stalls, r.FullyVerified)
			}
		})
	}
}
