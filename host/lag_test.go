package host

import (
	"testing"
	"time"
)

// TestLagOver: Over counts the ticks at least d late, by whole buckets
// (d rounded up to one), and Quantile(1) is the latest's bucket's upper
// edge.
func TestLagOver(t *testing.T) {
	var h lagHistogram
	for _, d := range []time.Duration{0, 50 * time.Microsecond, 4100 * time.Microsecond, 4200 * time.Microsecond, 9 * time.Millisecond, time.Second} {
		h.add(d)
	}
	l := h.snapshot()
	for _, c := range []struct {
		d    time.Duration
		want uint64
	}{{0, 6}, {-time.Millisecond, 6}, {time.Microsecond, 4}, {4100 * time.Microsecond, 4}, {4101 * time.Microsecond, 3},
		{4166 * time.Microsecond, 3}, {4201 * time.Microsecond, 2}, {100 * time.Millisecond, 1}, {101 * time.Millisecond, 0}, {time.Hour, 0}} {
		if got := l.Over(c.d); got != c.want {
			t.Errorf("Over(%v) = %d, want %d", c.d, got, c.want)
		}
	}
	if got := l.Quantile(1); got != time.Duration(lagBuckets)*LagBucket {
		t.Errorf("max %v: want the last bucket's edge", got)
	}
}
