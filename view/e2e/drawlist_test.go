package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// drawBench is the page's window.rewindDrawBench(n).
type drawBench struct {
	List   float64 `json:"list_ms"`
	Legacy float64 `json:"legacy_ms"`
	Frames int     `json:"frames"`
	Error  string  `json:"error"`
}

// canvasColours is a script that counts the colours of the page's
// canvas below the HUD (the game's canvas).
const canvasColours = `(() => {
  const c = document.getElementById('screen');
  const d = c.getContext('2d').getImageData(0, 36, c.width, c.height - 36).data;
  const seen = new Set();
  for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 16) | (d[i+1] << 8) | d[i+2]);
  return seen.size;
})()`

// BenchmarkPageDrawList measures, in one tab, what the page's frame of
// the demo's sand (its 256×256 grid and avatars) costs drawn
// through the game's draw list against the page's per-game drawing before
// it (view/page/drawbench.go: the same frame, alternated in blocks of
// ten), and checks the canvas shows the game (more than three colours
// under the HUD). docs/benchmarks.md:
//
//	cd view && go test -run '^$' -bench PageDrawList -benchtime 1x ./e2e
func BenchmarkPageDrawList(b *testing.B) {
	d := startDemo(b)
	br := chromium(b)
	var list, legacy float64
	for b.Loop() {
		ctx, cancel := chromedp.NewContext(br)
		if err := chromedp.Do(ctx, chromedp.Navigate(d.url+"?until-tick=300&input=scripted")); err != nil {
			b.Fatal(err)
		}
		waitStatus(b, ctx, "the page stops at tick 300", 2*time.Minute, func(st map[string]string) bool { return st["state"] == "done" })
		deadline := time.Now().Add(time.Minute)
		for !eval[bool](b, ctx, `typeof window.rewindDrawBench === 'function'`) {
			if time.Now().After(deadline) {
				b.Fatal("the drawing program did not start")
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond) // a few animation frames
		if n := eval[int](b, ctx, canvasColours); n < 4 {
			b.Fatalf("the canvas under the HUD has %d colours: not the game", n)
		}
		var r drawBench
		if err := json.Unmarshal([]byte(eval[string](b, ctx, `JSON.stringify(rewindDrawBench(300))`)), &r); err != nil || r.Error != "" {
			b.Fatalf("rewindDrawBench: %v %s", err, r.Error)
		}
		b.Logf("a frame through the draw list %.3f ms, the per-game drawing %.3f ms (%d frames each): %.2fx", r.List, r.Legacy, r.Frames, r.List/r.Legacy)
		list += r.List
		legacy += r.Legacy
		cancel()
	}
	b.ReportMetric(list/float64(b.N), "ms-frame-list")
	b.ReportMetric(legacy/float64(b.N), "ms-frame-legacy")
	b.ReportMetric(list/legacy, "list/legacy")
}
