package server

import (
	"testing"
	"time"
)

// TestFetchBucket (issue 43 item 4), in made-up time: a peer asking for
// page hashes (or pages) every 20 ms for 10 s, each for another past
// tick, is served its burst of 4 and then one per 100 ms: 104 of 500;
// a repair's two requests after a quiet while are both served at once.
func TestFetchBucket(t *testing.T) {
	s := &Server[struct{}]{cfg: Config{FetchInterval: 100 * time.Millisecond, FetchBurst: 4}}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b fetchBucket
	served := 0
	for i := range 500 {
		if s.fetchAllowed(t0.Add(time.Duration(i)*20*time.Millisecond), &b) {
			served++
		}
	}
	if served < 102 || served > 104 || s.stats.FetchesLimited != uint64(500-served) {
		t.Fatalf("served %d of 500 (limited %d), want 4 + one per 100 ms", served, s.stats.FetchesLimited)
	}
	later := t0.Add(time.Minute)
	if !s.fetchAllowed(later, &b) || !s.fetchAllowed(later.Add(2*time.Millisecond), &b) {
		t.Fatal("a repair's two requests after a quiet minute were not both served")
	}
}
