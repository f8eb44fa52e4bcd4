package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestTabSpectates: a Chromium tab opens `rewind demo`'s page with
// ?watch=CODE&delay=1s and watches the room's match as a spectator while
// two `rewind play --headless` bots play it. The tab takes no player slot
// (its status says player=- and state=spectating while the match runs; the
// bots, which join after it, are players 0 and 1 of a match and a room
// of two at most), and at tick 360
// its verified hash is bot 1's, which stops there; bot 2 plays on until the
// tab has stopped, so that the match runs while the delayed tab catches up.
// The tab takes the MessagePort path (?channel=port: the page's thread
// forwards the data channel's datagrams to the Worker), which browsers
// that cannot transfer a data channel take.
func TestTabSpectates(t *testing.T) {
	const until = 360
	rewindBin(t) // built before the clock starts (the other tests share it)
	began := time.Now()
	t.Cleanup(func() { t.Logf("test without the build: %v", time.Since(began).Round(time.Millisecond)) })
	// A match of two players at most: the relay caps the room at two
	// players too, and counts the tab as a spectator, not as one of them.
	// The tab and the server give each other 30 s of silence, as the bots
	// do (--timeout 30s): on a loaded machine the page's thread, which
	// forwards every datagram on this path, can be held for seconds.
	d := startDemo(t, "--players", "2", "--max-players", "2", "--player-timeout", "30s")
	b := chromium(t)
	opened := time.Now()
	spec := tab(t, b, d.url+"?watch="+d.code+"&delay=1s&timeout=30s&channel=port&until-tick="+strconv.Itoa(until))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bot := func(until int) *player {
		return startPlayer(ctx, nil, rewindBin(t), "play", "--headless", "--join", d.code, "--relay", d.relay,
			"--until-tick", strconv.Itoa(until), "--status", "0", "--log-level", "warn", "--timeout", "30s")
	}
	// The tab is in first: had it taken a slot, it would have id 0.
	st := waitStatus(t, spec, "the server admits the tab", 2*time.Minute, func(st map[string]string) bool { return st["state"] == "spectating" })
	t.Logf("page open to spectating: %v; %v", time.Since(opened).Round(time.Millisecond), st)
	if path := eval[string](t, spec, "String(window.rewindChannelPath)"); path != "port" {
		t.Errorf("with ?channel=port the data channel took the %s path", path)
	}
	bot1, bot2 := bot(until), bot(0)
	st = waitStatus(t, spec, "the tab shows the match", time.Minute, func(st map[string]string) bool { return st["verified_tick"] != "0" })
	if st["player"] != "-" || st["rollbacks"] != "0" {
		t.Errorf("spectating tab: %v", st)
	}
	st = waitStatus(t, spec, "the tab reaches the until tick", time.Minute, func(st map[string]string) bool {
		return st["state"] == "done" || st["state"] == "failed"
	})
	bot2.interrupt()
	line1, line2 := bot1.result(t, "bot 1"), bot2.result(t, "bot 2")
	if st["state"] != "done" || st["verified_tick"] != strconv.Itoa(until) || st["verified_hash"] != line1["verified_hash"] || st["player"] != "-" {
		t.Errorf("spectating tab ended with %v; bot 1 (tick %d) %v", st, until, line1)
	}
	ids := map[string]bool{line1["player"]: true, line2["player"]: true}
	if !ids["0"] || !ids["1"] {
		t.Errorf("bots are players %s and %s, want 0 and 1 (the tab took no id)", line1["player"], line2["player"])
	}
	t.Logf("page open to tick %d: %v; tab %v; bot 1 %v", until, time.Since(opened).Round(time.Millisecond), st, line1)
	if link := eval[string](t, spec, `document.getElementById("mode").getAttribute("href")`); link != "?room="+d.code {
		t.Errorf("the watching page's #mode link: %q, want ?room=%s (play instead)", link, d.code)
	}
	if dir := os.Getenv("REWIND_SCREENSHOTS"); dir != "" { // keep it (docs/)
		png, err := chromedp.Run(spec, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(dir, "spectator.png"), png, 0o644)
	}
}
