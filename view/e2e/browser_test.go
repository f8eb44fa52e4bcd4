package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// untilTick is where every player of the end-to-end tests stops: 20 s of
// play at 60 Hz.
const untilTick = 1200

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
		// loopback interface allowed.
		chromedp.Flag("disable-features", "WebRtcHideLocalIpsWithMdns"),
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
	return ctx
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

// TestBrowserTabsAndBot: `rewind demo` serves the page; two headless
// Chromium tabs and one native `rewind play --headless` bot join its room,
// play 20 s, and all three reach the same verified hash at tick 1200.
// Tab 2's window is minimized from its join on, and watched for 10 s of
// the match: its page is hidden (no animation frames), and its tick goes
// on at the tick rate, driven by the Worker's timer; then it is restored. A screenshot of tab 1 is written to the test's
// temp dir.
func TestBrowserTabsAndBot(t *testing.T) {
	// The match starts when all three have said hello (--players 3), so
	// that all play the same 20 s and tab 2's hidden 10 s fall in the
	// middle however long the pages take to load on a busy machine.
	d := startDemo(t, "--players", "3")
	b := chromium(t)
	url := d.url + "?until-tick=" + strconv.Itoa(untilTick)
	opened := time.Now()
	tab1 := tab(t, b, url)
	welcomed := func(st map[string]string) bool { return st["player"] != "-" }
	waitStatus(t, tab1, "tab 1 joins", time.Minute, welcomed)
	t.Logf("page open to joined (tab 1 alone): %v; tab 1's timeline in ms from navigation: %s", time.Since(opened).Round(time.Millisecond),
		eval[string](t, tab1, `JSON.stringify(window.rewindTimes, (k, v) => typeof v == "number" ? Math.round(v) : v)`))
	tab2 := tab(t, b, url+"&room="+d.code) // ?room= names the same room

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bot := startPlayer(ctx, nil, rewindBin(t), "play", "--headless", "--join", d.code, "--relay", d.relay,
		"--until-tick", strconv.Itoa(untilTick), "--status", "0", "--log-level", "warn", "--timeout", "30s")
	// Tab 2 is minimized as soon as it has joined (the match starts when
	// the bot joins too), so that its hidden 10 s fall early in the 20 s
	// however slowly a loaded machine answers the DevTools calls.
	waitStatus(t, tab2, "tab 2 joins", time.Minute, welcomed)
	setWindowState(t, tab2, browser.WindowStateMinimized)
	if v := eval[string](t, tab2, "document.visibilityState"); v != "hidden" {
		t.Fatalf("minimized tab: visibilityState %q, want hidden", v)
	}
	playing := func(st map[string]string) bool { return st["state"] == "playing" && st["verified_tick"] != "0" }
	waitStatus(t, tab2, "tab 2 verifies its first tick while hidden", time.Minute, playing)
	waitStatus(t, tab1, "tab 1 verifies its first tick", time.Minute, playing)

	// Tab 2 hidden for 10 s: its tick must keep the tick rate.
	start, t0 := time.Now(), num(t, status(t, tab2), "tick")
	runs0 := eval[int](t, tab2, "window.rewindHandlerRuns")
	if t0 >= untilTick-600 {
		t.Fatalf("tab 2 was already at tick %d when hidden: too late to watch 10 s of hidden play before %d", t0, untilTick)
	}
	changes, last := 0, t0
	for time.Since(start) < 10*time.Second {
		time.Sleep(250 * time.Millisecond)
		if n := num(t, status(t, tab2), "tick"); n != last {
			changes, last = changes+1, n
		}
	}
	hidden := time.Since(start)
	runs := eval[int](t, tab2, "window.rewindHandlerRuns") - runs0
	if v := eval[string](t, tab2, "document.visibilityState"); v != "hidden" {
		t.Fatalf("tab 2 became %q while minimized", v)
	}
	advanced := last - t0
	want := hidden.Seconds() * 60
	t.Logf("hidden tab 2: tick %d → %d in %v (%.1f ticks/s); the tick handler ran %d times (%.1f/s); #status changed in %d of %d samples",
		t0, last, hidden.Round(time.Millisecond), float64(advanced)/hidden.Seconds(), runs, float64(runs)/hidden.Seconds(),
		changes, int(hidden/(250*time.Millisecond)))
	// Its ticks keep the tick rate (with room for a loaded machine: a
	// page whose ticks came from animation frames would stand still), and
	// the Worker's timer runs the handler several times a second (a
	// hidden page's own setInterval runs once a second).
	if float64(advanced) < 0.7*want || float64(runs) < 3*hidden.Seconds() {
		t.Errorf("hidden tab 2 advanced %d ticks in %v (want about %.0f), its handler ran %d times", advanced, hidden, want, runs)
	}
	setWindowState(t, tab2, browser.WindowStateNormal)
	if v := eval[string](t, tab2, "document.visibilityState"); v != "visible" {
		t.Errorf("restored tab: visibilityState %q", v)
	}

	done := func(st map[string]string) bool { return st["state"] == "done" || st["state"] == "failed" }
	st1 := waitStatus(t, tab1, "tab 1 reaches the until tick", time.Minute, done)
	st2 := waitStatus(t, tab2, "tab 2 reaches the until tick", time.Minute, done)
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
	t.Logf("tick %d: tab 1 %v; tab 2 %v; bot %v", untilTick, st1, st2, botLine)

	png, err := chromedp.Run(tab1, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "tab1.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of tab 1: %s", shot)
	if dir := os.Getenv("REWIND_SCREENSHOTS"); dir != "" { // keep it (docs/)
		_ = os.WriteFile(filepath.Join(dir, "browser.png"), png, 0o644)
	}
}
