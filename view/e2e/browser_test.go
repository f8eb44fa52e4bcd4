package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
)

// untilTick is where every player of TestBrowserTabsAndBot stops: 40 s
// of play at 60 Hz.
const untilTick = 2400

// chromium starts headless Chromium with the flags loopback WebRTC needs,
// and returns a context for it (its first tab).
func chromium(t testing.TB) context.Context {
	t.Helper()
	exe := need(t, "the browser test drives Debian's Chromium", "chromium", "chromium-browser")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Headless, // WebGL works with plain --headless (not with --use-gl=swiftshader)
		// Loopback WebRTC: real local addresses in candidates, and the
		// loopback interface allowed. Each tab in a renderer process of
		// its own, as tabs on different machines are: Chromium otherwise
		// puts same-site tabs in one process, whose one main thread a
		// loading tab then holds for seconds (a tab that hosts a room
		// must answer the relay's pings within 3 s).
		chromedp.Flag("disable-features", "WebRtcHideLocalIpsWithMdns,ProcessPerSiteUpToMainFrameThreshold"),
		chromedp.Flag("allow-loopback-in-peer-connection", true),
		// Quiet: no traffic off the machine.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(600, 700),
		// Deliberately not chromedp's defaults, which turn off the
		// throttling of hidden pages this test is about.
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(alloc)
	t.Cleanup(cancel2)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}

// tab opens url in a new window of the browser of parent.
func tab(t testing.TB, parent context.Context, url string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(parent)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	logOnFailure(t, ctx, url)
	return ctx
}

// logOnFailure logs, if the test fails, what the tab at url shows last:
// its #status, its timeline (window.rewindTimes) and which way its data
// channel went to the Worker (a closed tab says so). A test's one failure
// in CI is all there is to read, so every tab speaks, not only the one
// the test was waiting on.
func logOnFailure(t testing.TB, ctx context.Context, url string) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		s, err := chromedp.Run(c, chromedp.Evaluate[string](`JSON.stringify({status: document.getElementById("status").textContent, `+
			`times: window.rewindTimes, path: window.rewindChannelPath || ""})`))
		if err != nil {
			s = "(" + err.Error() + ")"
		}
		t.Logf("tab %s at the end: %s", url, s)
	})
}

// tabsTogether opens each of urls in a new window of the browser of
// parent, all at once: the windows are made first, then navigated
// together, so that no page waits for another's load event.
func tabsTogether(t testing.TB, parent context.Context, urls ...string) []context.Context {
	t.Helper()
	ctxs := make([]context.Context, len(urls))
	for i := range urls {
		ctx, cancel := chromedp.NewContext(parent)
		t.Cleanup(cancel)
		if err := chromedp.Do(ctx); err != nil {
			t.Fatalf("opening a window: %v", err)
		}
		ctxs[i] = ctx
		logOnFailure(t, ctx, urls[i])
	}
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Go(func() { errs[i] = chromedp.Do(ctxs[i], chromedp.Navigate(u)) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("opening %s: %v", urls[i], err)
		}
	}
	return ctxs
}

// eval evaluates a JavaScript expression in a tab.
func eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// status returns the fields of a tab's #status.
func status(t testing.TB, ctx context.Context) map[string]string {
	t.Helper()
	return fields(eval[string](t, ctx, `document.getElementById("status").textContent`))
}

// waitStatus polls a tab's status until cond holds, failing after limit.
func waitStatus(t testing.TB, ctx context.Context, what string, limit time.Duration, cond func(map[string]string) bool) map[string]string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		st := status(t, ctx)
		if cond(st) {
			return st
		}
		if st["state"] == "failed" || time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; status: %s", what, limit, eval[string](t, ctx, `document.getElementById("status").textContent`))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// setWindowState minimizes or restores the window of a tab.
func setWindowState(t testing.TB, ctx context.Context, state browser.WindowState) {
	t.Helper()
	id := chromedp.FromContext(ctx).Target.TargetID
	w, err := chromedp.CallBrowser(ctx, browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: id})
	if err != nil {
		t.Fatalf("Browser.getWindowForTarget: %v", err)
	}
	if _, err := chromedp.CallBrowser(ctx, browser.SetWindowBounds, browser.SetWindowBoundsParams{
		WindowID: w.WindowID, Bounds: &browser.Bounds{WindowState: state},
	}); err != nil {
		t.Fatalf("Browser.setWindowBounds %s: %v", state, err)
	}
}

func num(t testing.TB, st map[string]string, key string) int {
	t.Helper()
	n, err := strconv.Atoi(st[key])
	if err != nil {
		t.Fatalf("status %s=%q: %v (%v)", key, st[key], err, st)
	}
	return n
}

// TestBrowserTabsAndBot: `rewind demo` serves the page; a native
// `rewind play --headless` bot and two headless Chromium tabs, opened
// together, join its room and play 40 s (all three the scripted bot
// input: the tabs with ?input=scripted), and all three reach the same
// verified hash at tick 2400. Tab 2's window is minimized for 10 s in the
// middle of the match: its page is hidden (no animation frames, its own
// timers throttled), and its tick must go on at ≥ 54 ticks a second,
// driven by its Worker's timer. Logged, not asserted (docs/benchmarks.md):
// each tab's time to its first verified tick, its median and largest
// ping_ms over the match and its rollbacks beside the bot's (and how
// often the others' scripted inputs changed), how far
// apart the two tabs' ticks ever were, and how far each tab's tick was
// ahead of the server's (its lead) or behind it, the server's tick read
// from the demo's console right after each reading of a tab's #status.
// A screenshot of tab 1 is written to the test's temp dir.
func TestBrowserTabsAndBot(t *testing.T) {
	// The match starts when all three have said hello (--players 3), so
	// that all play the same 40 s however long the pages take to load.
	d := startDemo(t, "--players", "3", "--console")
	b := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bot := startPlayer(ctx, nil, rewindBin(t), "play", "--headless", "--join", d.code, "--relay", d.relay,
		"--until-tick", strconv.Itoa(untilTick), "--status", "0", "--log-level", "warn", "--timeout", "30s")
	// The tabs play the bot's scripted input (for their own ids), so
	// that their rollbacks and the bot's compare like with like.
	url := d.url + "?input=scripted&until-tick=" + strconv.Itoa(untilTick)
	opened := tabsTogether(t, b, url, url+"&room="+d.code) // ?room= names the same room
	tab1, tab2 := opened[0], opened[1]
	playing := func(st map[string]string) bool { return st["state"] == "playing" && st["verified_tick"] != "0" }
	tabs := []context.Context{tab1, tab2}
	for i, tb := range tabs {
		waitStatus(t, tb, fmt.Sprintf("tab %d verifies its first tick", i+1), time.Minute, playing)
		t.Logf("tab %d's timeline in ms from navigation: %s (channel path %s)", i+1,
			eval[string](t, tb, `JSON.stringify(window.rewindTimes, (k, v) => typeof v == "number" ? Math.round(v) : v)`),
			eval[string](t, tb, `String(window.rewindChannelPath)`))
	}
	s := samples{d: d}
	// Tab 2 is minimized in the middle of the match.
	for num(t, s.take(t, tabs)[1], "tick") < untilTick/2-300 {
		time.Sleep(250 * time.Millisecond)
	}
	setWindowState(t, tab2, browser.WindowStateMinimized)
	if v := eval[string](t, tab2, "document.visibilityState"); v != "hidden" {
		t.Fatalf("minimized tab: visibilityState %q, want hidden", v)
	}
	// Tab 2 hidden for 10 s: its tick must keep the tick rate.
	start, t0 := time.Now(), num(t, s.take(t, tabs)[1], "tick")
	runs0 := eval[int](t, tab2, "window.rewindHandlerRuns")
	changes, last := 0, t0
	for time.Since(start) < 10*time.Second {
		time.Sleep(250 * time.Millisecond)
		if n := num(t, s.take(t, tabs)[1], "tick"); n != last {
			changes, last = changes+1, n
		}
	}
	hidden := time.Since(start)
	runs := eval[int](t, tab2, "window.rewindHandlerRuns") - runs0
	if v := eval[string](t, tab2, "document.visibilityState"); v != "hidden" {
		t.Fatalf("tab 2 became %q while minimized", v)
	}
	rate := float64(last-t0) / hidden.Seconds()
	t.Logf("hidden tab 2: tick %d → %d in %v (%.1f ticks/s); the tick handler ran %d times (%.1f/s); #status changed in %d of %d samples",
		t0, last, hidden.Round(time.Millisecond), rate, runs, float64(runs)/hidden.Seconds(), changes, int(hidden/(250*time.Millisecond)))
	if last >= untilTick {
		t.Errorf("tab 2 reached tick %d while hidden: the match ended before 10 hidden seconds", last)
	}
	if rate < 54 {
		t.Errorf("hidden tab 2 advanced %.1f ticks a second (want ≥ 54 at tick rate 60)", rate)
	}
	setWindowState(t, tab2, browser.WindowStateNormal)
	if v := eval[string](t, tab2, "document.visibilityState"); v != "visible" {
		t.Errorf("restored tab: visibilityState %q", v)
	}
	for !s.done() {
		time.Sleep(250 * time.Millisecond)
		s.take(t, tabs)
	}
	st1, st2 := s.last[0], s.last[1]
	botLine := bot.result(t, "rewind play")
	for name, st := range map[string]map[string]string{"tab 1": st1, "tab 2": st2, "bot": botLine} {
		if st["verified_tick"] != strconv.Itoa(untilTick) || len(st["verified_hash"]) != 16 {
			t.Errorf("%s ended with %v", name, st)
		}
	}
	if st1["verified_hash"] != botLine["verified_hash"] || st2["verified_hash"] != botLine["verified_hash"] {
		t.Errorf("verified hashes at tick %d differ: tab 1 %s, tab 2 %s, bot %s", untilTick, st1["verified_hash"], st2["verified_hash"], botLine["verified_hash"])
	}
	if st1["player"] == st2["player"] || st1["player"] == botLine["player"] {
		t.Errorf("players not distinct: tab 1 %s, tab 2 %s, bot %s", st1["player"], st2["player"], botLine["player"])
	}
	for i := range tabs {
		t.Logf("tab %d: ping_ms median %.1f, max %.1f over %d samples; rollbacks %s", i+1, s.median(i), s.max(i), len(s.pings[i]), s.last[i]["rollbacks"])
	}
	t.Logf("bot: ping_ms %s, rollbacks %s, max_rollback %s; the tabs' ticks were at most %d apart", botLine["ping_ms"], botLine["rollbacks"], botLine["max_rollback"], s.apart)
	for i := range tabs {
		a := slices.Sorted(slices.Values(s.ahead[i]))
		if len(a) == 0 {
			t.Errorf("tab %d: no sample of the server's tick while it played", i+1)
			continue
		}
		t.Logf("tab %d's tick minus the server's, over %d samples: median %d (its lead), least %d (%d ticks behind the server at worst; negative: never behind), most %d; a sample's reading of the server came at most %v after the tab's",
			i+1, len(a), a[len(a)/2], a[0], max(0, -a[0]), a[len(a)-1], s.skew.Round(time.Millisecond))
	}
	c1, c2, cb := scriptedChanges(t, untilTick, st1["player"]), scriptedChanges(t, untilTick, st2["player"]), scriptedChanges(t, untilTick, botLine["player"])
	t.Logf("the others' scripted input changes by tick %d, summed (a client, predicting another's input by repeating the last, rolls back at most once for each): tab 1's %d, tab 2's %d, the bot's %d",
		untilTick, c2+cb, c1+cb, c1+c2)
	t.Logf("tick %d: tab 1 %v; tab 2 %v; bot %v", untilTick, st1, st2, botLine)
	screenshot(t, tab1, "browser.png")
}

// samples are the tabs' #status lines read while they play, each
// followed by the server's tick (the demo's console).
type samples struct {
	d     *demo
	last  [2]map[string]string
	pings [2][]float64
	apart int // the largest difference of the two tabs' ticks
	// ahead holds, for each sample of a playing tab, its tick minus the
	// server's read right after it (negative: behind the server); skew
	// is the longest time from reading a tab to reading the server.
	ahead [2][]int
	skew  time.Duration
}

// take reads both tabs' #status, failing the test at state=failed, and
// returns them.
func (s *samples) take(t *testing.T, tabs []context.Context) [2]map[string]string {
	t.Helper()
	var ticks [2]int
	for i, tb := range tabs {
		st := status(t, tb)
		read := time.Now()
		if st["state"] == "failed" {
			t.Fatalf("tab %d failed: %v", i+1, st)
		}
		s.last[i] = st
		ticks[i] = num(t, st, "tick")
		if srv, ok := s.d.serverTick(t); ok && st["state"] == "playing" && ticks[i] > 0 {
			s.ahead[i] = append(s.ahead[i], ticks[i]-srv)
			s.skew = max(s.skew, time.Since(read))
		}
		if p, err := strconv.ParseFloat(st["ping_ms"], 64); err == nil && st["state"] == "playing" {
			s.pings[i] = append(s.pings[i], p)
		}
	}
	if s.last[0]["state"] == "playing" && s.last[1]["state"] == "playing" {
		s.apart = max(s.apart, ticks[0]-ticks[1], ticks[1]-ticks[0])
	}
	return s.last
}

// serverTick returns the tick of the demo's match as its console
// (--console) shows it, and false before the match has one.
func (d *demo) serverTick(t testing.TB) (int, bool) {
	t.Helper()
	resp, err := http.Get(d.url + "console/api/state")
	if err != nil {
		t.Fatalf("the demo's console: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		return 0, false // the console's rate per address
	}
	var snap struct {
		Rooms []struct {
			Code string  `json:"code"`
			Tick *uint32 `json:"tick"`
		} `json:"rooms"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&snap); err != nil {
		t.Fatalf("the demo's console: %v", err)
	}
	for _, r := range snap.Rooms {
		if r.Code == d.code && r.Tick != nil && *r.Tick > 0 {
			return int(*r.Tick), true
		}
	}
	return 0, false
}

// done says both tabs stopped.
func (s *samples) done() bool {
	return s.last[0]["state"] == "done" && s.last[1]["state"] == "done"
}

func (s *samples) median(i int) float64 {
	p := slices.Clone(s.pings[i])
	if len(p) == 0 {
		return 0
	}
	slices.Sort(p)
	return p[len(p)/2]
}

func (s *samples) max(i int) float64 {
	if len(s.pings[i]) == 0 {
		return 0
	}
	return slices.Max(s.pings[i])
}

// scriptedChanges counts the ticks up to until at which the scripted
// input (rewind play --input scripted, seed 0; the page's
// ?input=scripted) of player id differs from the tick before's.
func scriptedChanges(t *testing.T, until int, id string) int {
	p, err := strconv.Atoi(id)
	if err != nil {
		t.Fatalf("player %q: %v", id, err)
	}
	n := 0
	for tick := uint32(2); tick <= uint32(until); tick++ {
		if sand.Bot(rewind.PlayerID(p), tick) != sand.Bot(rewind.PlayerID(p), tick-1) {
			n++
		}
	}
	return n
}

// screenshot writes a tab's screenshot to the test's temp dir (and to
// $REWIND_SCREENSHOTS/name when set).
func screenshot(t *testing.T, tb context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(tb, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
	if dir := os.Getenv("REWIND_SCREENSHOTS"); dir != "" { // keep it (docs/)
		_ = os.WriteFile(filepath.Join(dir, name), png, 0o644)
	}
}
