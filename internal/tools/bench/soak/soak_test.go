package soak

import (
	"strings"
	"testing"
)

// TestSoakJudge: each way a soak can fail makes held=false and says why;
// a clean one holds.
func TestSoakJudge(t *testing.T) {
	good := Result{
		counts:    soakCounts{verified: 1000, rejoins: 10, kept: 10},
		back:      true,
		heapStart: 4 << 20, heapEnd: 4<<20 + 800<<10, gorStart: 10, gorEnd: 10,
	}
	r := good
	if r.judge(); !r.held || len(r.why) != 0 {
		t.Fatalf("a clean soak: held=%v, why %q", r.held, r.why)
	}
	for name, bad := range map[string]func(r *Result){
		"desyncs":          func(r *Result) { r.counts.desyncs = 1 },
		"no rejoin":        func(r *Result) { r.counts.rejoins, r.counts.kept = 0, 0 },
		"lost their id":    func(r *Result) { r.counts.kept = 9 },
		"dropped":          func(r *Result) { r.counts.dropped = 1 },
		"no tick verified": func(r *Result) { r.counts.verified = 0 },
		"came back":        func(r *Result) { r.back = false },
		"heap grew":        func(r *Result) { r.heapEnd = 5 << 20 },
		"goroutines grew":  func(r *Result) { r.gorEnd = 11 },
	} {
		r := good
		r.why = nil
		bad(&r)
		r.judge()
		if r.held || len(r.why) != 1 || !strings.Contains(r.why[0], name) {
			t.Errorf("%s: held=%v, why %q", name, r.held, r.why)
		}
	}
}
