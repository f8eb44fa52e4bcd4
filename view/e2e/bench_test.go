package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// BenchmarkPageFirstTick measures the time from opening the demo's page
// (a new headless Chromium window) to its first verified tick, in a match
// the page starts alone, and the page's own timeline (ms from navigation):
// the wasm fetched and compiled, Go's main running, the data channel to
// the host open, the first verified tick; then, the page done (?bench),
// the Worker's own measurement of a client's tick and of a 60-tick
// rollback of the demo's world (performance.now; the median rollback).
// docs/benchmarks.md:
//
//	cd view && go test -run '^$' -bench PageFirstTick -benchtime 3x ./e2e
func BenchmarkPageFirstTick(b *testing.B) {
	d := startDemo(b)
	br := chromium(b)
	sum := map[string]float64{}
	var wall time.Duration
	var tick float64
	var rollbacks []float64
	visits := 0
	for b.Loop() {
		start := time.Now()
		ctx, cancel := chromedp.NewContext(br)
		if err := chromedp.Do(ctx, chromedp.Navigate(d.url+"?until-tick=60&bench")); err != nil {
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
		b.Logf("visit %d (%s cache): %v", visits, map[bool]string{true: "a cold", false: "a warm"}[visits == 0], tl)
		visits++
		waitStatus(b, ctx, "the page stops at tick 60", time.Minute, func(st map[string]string) bool { return st["state"] == "done" })
		rb := waitBench(b, ctx)
		tick += rb.Tick
		rollbacks = append(rollbacks, rb.Rollback60...)
		cancel()
	}
	n := float64(b.N)
	b.ReportMetric(float64(wall.Milliseconds())/n, "ms-open-to-verified")
	for _, k := range []string{"compiled", "main", "answered", "joined", "started", "predicting", "verified"} {
		b.ReportMetric(sum[k]/n, "ms-"+k)
	}
	b.ReportMetric(1000*tick/n, "us-tick-in-tab")
	slices.Sort(rollbacks)
	b.ReportMetric(rollbacks[len(rollbacks)/2], "ms-rollback60-in-tab")
	b.ReportMetric(rollbacks[0], "ms-rollback60-in-tab-min")
	b.Logf("60-tick rollbacks in the tab's Worker (ms, sorted): %.1f", rollbacks)
}

// inTab is the Worker's in-tab measurement (?bench: window.rewindBench).
type inTab struct {
	Game       string    `json:"game"` // "module" when the tab played one
	Tick       float64   `json:"tick_ms"`
	Rollback60 []float64 `json:"rollback60_ms"`
	Error      string    `json:"error"`
}

// waitBench waits for the page's window.rewindBench and returns it.
func waitBench(b testing.TB, ctx context.Context) inTab {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if s := eval[string](b, ctx, `JSON.stringify(window.rewindBench || null)`); s != "null" {
			var r inTab
			if err := json.Unmarshal([]byte(s), &r); err != nil || r.Error != "" || len(r.Rollback60) == 0 {
				b.Fatalf("window.rewindBench %s: %v", s, err)
			}
			return r
		}
		if time.Now().After(deadline) {
			b.Fatal("no window.rewindBench within a minute of the page's end")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
