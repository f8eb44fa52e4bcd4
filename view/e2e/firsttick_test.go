package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkTabsTogetherFirstTick measures, in TestBrowserTabsAndBot's
// set-up (a fresh headless Chromium profile, two tabs opened together
// and a native bot in the demo's room, the match starting when all three
// have said hello: --players 3), each tab's time from navigation to its
// first verified tick (window.rewindTimes.verified) and the timeline
// before it: a new demo, browser and bot for each run, 120 ticks (one
// iteration takes longer than the default -benchtime, so each -count is
// one sample, its processes stopped before the next), and when the HTML
// and each file the tab fetched arrived (fetchTimes). The goal:
// ≤ 3 s for each tab. docs/benchmarks.md:
//
//	cd view && go test -run '^$' -bench TabsTogetherFirstTick -count 5 -v ./e2e
func BenchmarkTabsTogetherFirstTick(b *testing.B) {
	stages := []string{"boot", "script", "socket", "wscript", "wcompiled", "worker", "answered", "joined", "compiled", "main", "started", "hello", "welcomed", "predicting", "verified"}
	var verified []float64
	sum := map[string]float64{}
	n := 0
	for b.Loop() {
		d := startDemo(b, "--players", "3")
		br := chromium(b)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		bot := startPlayer(ctx, nil, rewindBin(b), "play", "--headless", "--join", d.code, "--relay", d.relay,
			"--until-tick", "120", "--status", "0", "--log-level", "warn", "--timeout", "30s")
		url := d.url + "?input=scripted&until-tick=120"
		tabs := tabsTogether(b, br, url, url+"&room="+d.code)
		for i, tb := range tabs {
			waitStatus(b, tb, "a tab verifies its first tick", time.Minute, func(st map[string]string) bool { return st["verified_tick"] != "0" })
			var tl map[string]float64
			if err := json.Unmarshal([]byte(eval[string](b, tb, `JSON.stringify(window.rewindTimes)`)), &tl); err != nil {
				b.Fatal(err)
			}
			b.Logf("run %d tab %d fetches (ms from navigation): %s", n, i+1, eval[string](b, tb, fetchTimes))
			line := ""
			for _, k := range stages {
				if v, ok := tl[k]; ok {
					line += " " + k + "=" + strconv.Itoa(int(v))
					sum[k] += v
				}
			}
			b.Logf("run %d tab %d (ms from navigation):%s", n, i+1, line)
			verified = append(verified, tl["verified"])
		}
		bot.result(b, "rewind play")
		cancel()
		n++
	}
	slices.Sort(verified)
	for _, k := range stages {
		b.ReportMetric(sum[k]/float64(len(verified)), "ms-"+k)
	}
	b.ReportMetric(verified[len(verified)/2], "ms-verified-median")
	b.ReportMetric(verified[len(verified)-1], "ms-verified-max")
	b.Logf("every tab's first verified tick (ms, sorted): %.0f", verified)
}

// fetchTimes is a tab's HTML's arrival (responseStart, responseEnd) and
// domInteractive, and each file's request and response end
// ("start-end"), in ms from navigation (the Resource Timing API).
const fetchTimes = `(() => {
	const n = performance.getEntriesByType("navigation")[0], r = {};
	for (const e of performance.getEntriesByType("resource")) r[e.name.replace(/^.*\//, "").replace(/\?.*/, "")] = Math.round(e.startTime) + "-" + Math.round(e.responseEnd);
	return JSON.stringify({responseStart: Math.round(n.responseStart), responseEnd: Math.round(n.responseEnd), domInteractive: Math.round(n.domInteractive), files: r});
})()`
