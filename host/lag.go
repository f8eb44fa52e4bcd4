package host

import (
	"sync/atomic"
	"time"
)

// LagBucket is the width of a bucket of Lag, and lagBuckets their number:
// 0 to 100 ms in steps of 0.1 ms, the last bucket holding the rest.
const (
	LagBucket  = 100 * time.Microsecond
	lagBuckets = 1001
)

// Lag is a histogram of how late ticks started after they were due
// (Multi.TickLag), counting also the time their datagrams waited for
// the other rooms of their worker's batch: Counts[i] counts the ticks
// that were i to i+1 LagBuckets late, the last bucket every later one.
type Lag struct {
	Counts [lagBuckets]uint64
}

// N returns the number of ticks counted.
func (l *Lag) N() uint64 {
	var n uint64
	for _, c := range l.Counts {
		n += c
	}
	return n
}

// Sub returns the ticks counted in l and not in o (o taken earlier).
func (l Lag) Sub(o Lag) Lag {
	for i := range l.Counts {
		l.Counts[i] -= o.Counts[i]
	}
	return l
}

// Add returns the ticks counted in l or in o (two windows' counts
// summed).
func (l Lag) Add(o Lag) Lag {
	for i := range l.Counts {
		l.Counts[i] += o.Counts[i]
	}
	return l
}

// Quantile returns the upper edge of the bucket holding the q-th quantile
// (0 < q <= 1) of the lateness, and 0 when nothing was counted.
func (l *Lag) Quantile(q float64) time.Duration {
	n := l.N()
	if n == 0 {
		return 0
	}
	want := uint64(q*float64(n) + 0.5)
	want = max(want, 1)
	var seen uint64
	for i, c := range l.Counts {
		seen += c
		if seen >= want {
			return time.Duration(i+1) * LagBucket
		}
	}
	return time.Duration(lagBuckets) * LagBucket
}

// Over returns how many ticks were at least d late: those in the buckets
// that begin at or after d (d rounded up to a LagBucket).
func (l *Lag) Over(d time.Duration) uint64 {
	var n uint64
	for i := min(max(int((d+LagBucket-1)/LagBucket), 0), lagBuckets); i < lagBuckets; i++ {
		n += l.Counts[i]
	}
	return n
}

// lagHistogram is Lag with atomic counters.
type lagHistogram struct {
	counts [lagBuckets]atomic.Uint64
}

func (h *lagHistogram) add(d time.Duration) {
	i := min(int(d/LagBucket), lagBuckets-1)
	h.counts[max(i, 0)].Add(1)
}

func (h *lagHistogram) snapshot() Lag {
	var l Lag
	for i := range h.counts {
		l.Counts[i] = h.counts[i].Load()
	}
	return l
}
