package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// BenchmarkPageFirstTick measures the time from opening the demo's page
// (a new headless Chromium window) to its first verified tick, in a match
// the page starts alone, and the page's own timeline (ms from navigation):
// the wasm fetched and compiled, Go's main running, the data channel to
// the host open, the first verified tick. docs/benchmarks.md:
//
//	cd view && go test -run '^$' -bench PageFirstTick -benchtime 3x ./e2e
func BenchmarkPageFirstTick(b *testing.B) {
	d := startDemo(b)
	br := chromium(b)
	sum := map[string]float64{}
	var wall time.Duration
	for b.Loop() {
		start := time.Now()
		ctx, cancel := chromedp.NewContext(br)
		if err := chromedp.Do(ctx, chromedp.Navigate(d.url+"?until-tick=60")); err != nil {
			b.Fatal(err)
		}
		waitStatus(b, ctx, "the page verifies its first tick", time.Minute, func(st map[string]string) bool { return st["verified_tick"] != "0" })
		wall += time.Since(start)
		var tl map[string]float64
		if err := json.Unmarshal([]byte(eval[string](b, ctx, `JSON.stringify(window.rewindTimes)`)), &tl); err != nil {
			b.Fatal(err)
		}
		for k, v := range tl {
			sum[k] += v
		}
		waitStatus(b, ctx, "the page stops at tick 60", time.Minute, func(st map[string]string) bool { return st["state"] == "done" })
		cancel()
	}
	n := float64(b.N)
	b.ReportMetric(float64(wall.Milliseconds())/n, "ms-open-to-verified")
	for _, k := range []string{"compiled", "main", "joined", "verified"} {
		b.ReportMetric(sum[k]/n, "ms-"+k)
	}
}
