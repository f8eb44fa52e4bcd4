package e2e

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// boxes is what layoutBoxes reads of a tab: the canvas's and the
// footer's (#bar's) boxes in CSS pixels, the layout viewport's size, and
// the #status fields that the browser broke across lines.
type boxes struct {
	Canvas, Bar     [4]float64 // left, top, right, bottom
	Width, Height   float64
	BrokenFields    []string
	StatusLineCount int
}

// layoutBoxes reads a tab's boxes (see boxes). A #status field is
// broken when its characters' client rects lie on more than one line.
const layoutBoxes = `(() => {
	const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
	const st = document.getElementById("status"), tn = st.firstChild, s = tn ? tn.textContent : "";
	const broken = [], tops = new Set();
	let i = 0;
	for (const f of s.split(" ")) {
		if (f) {
			const r = document.createRange();
			r.setStart(tn, i); r.setEnd(tn, i + f.length);
			const rs = Array.from(r.getClientRects());
			for (const x of rs) tops.add(Math.round(x.top));
			if (new Set(rs.map((x) => Math.round(x.top))).size > 1) broken.push(f);
		}
		i += f.length + 1;
	}
	const root = document.documentElement;
	return JSON.stringify({Canvas: box(document.getElementById("screen")), Bar: box(document.getElementById("bar")),
		Width: root.clientWidth, Height: root.clientHeight, BrokenFields: broken, StatusLineCount: tops.size});
})()`

// TestPageFits (issue 42 item 3): at 1280×900, 1024×768 and 390×844 (a
// phone held upright: mobile emulation, 3 device pixels a CSS pixel) a
// playing tab's canvas lies inside the layout viewport and wholly above
// the footer (#bar: the footer covers no part of the playfield), and no
// #status field is broken across lines (it wraps only between fields).
// A screenshot at each size is written to the test's temp dir (and to
// $REWIND_SCREENSHOTS).
func TestPageFits(t *testing.T) {
	d := startDemo(t)
	b := chromium(t)
	tb := tab(t, b, d.url+"?input=scripted")
	waitStatus(t, tb, "the tab verifies its first tick", time.Minute, func(st map[string]string) bool { return st["verified_tick"] != "0" })
	for _, sz := range []struct {
		w, h  int64
		phone bool
	}{{1280, 900, false}, {1024, 768, false}, {390, 844, true}} {
		name := fmt.Sprintf("%dx%d", sz.w, sz.h)
		opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
		if sz.phone {
			opts = []chromedp.EmulateViewportOption{chromedp.EmulateScale(3), chromedp.EmulateMobile}
		}
		if _, err := chromedp.Run(tb, chromedp.EmulateViewport(sz.w, sz.h, opts...)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The page fits its canvas on the next animation frames: read
		// until two readings 200 ms apart agree.
		var got boxes
		prev := ""
		for deadline := time.Now().Add(10 * time.Second); ; {
			time.Sleep(200 * time.Millisecond)
			s := eval[string](t, tb, layoutBoxes)
			if s == prev || time.Now().After(deadline) {
				if err := json.Unmarshal([]byte(s), &got); err != nil {
					t.Fatal(err)
				}
				break
			}
			prev = s
		}
		screenshot(t, tb, "layout-"+name+".png")
		t.Logf("%s: viewport %.0f×%.0f, canvas %.0f–%.0f × %.0f–%.0f, footer from y=%.0f, status on %d lines", name,
			got.Width, got.Height, got.Canvas[0], got.Canvas[2], got.Canvas[1], got.Canvas[3], got.Bar[1], got.StatusLineCount)
		const slack = 0.5 // sub-pixel rounding
		if got.Canvas[3] > got.Bar[1]+slack {
			t.Errorf("%s: the footer (from y=%.1f) covers the canvas's bottom %.1f px", name, got.Bar[1], got.Canvas[3]-got.Bar[1])
		}
		if got.Canvas[0] < -slack || got.Canvas[1] < -slack || got.Canvas[2] > got.Width+slack || got.Canvas[3] > got.Height+slack {
			t.Errorf("%s: the canvas %v runs outside the %.0f×%.0f viewport", name, got.Canvas, got.Width, got.Height)
		}
		if got.Canvas[2]-got.Canvas[0] < float64(sz.w)/3 {
			t.Errorf("%s: the canvas is %.0f px wide: not fitted to the window", name, got.Canvas[2]-got.Canvas[0])
		}
		if len(got.BrokenFields) > 0 {
			t.Errorf("%s: #status fields broken across lines: %v", name, got.BrokenFields)
		}
	}
}
