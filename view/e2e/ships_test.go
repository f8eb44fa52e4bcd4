package e2e

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestShipsPageWindowAndBot: `rewind demo --game ships` hosts a ships
// match and serves its page; a Chromium tab (the page learns the game
// from the demo: data-game), the desktop window (--game ships, under
// Xvfb) and a native `rewind play --headless --game ships --input
// random` bot play it to verified tick 600 and reach the same hash
// there. The tab's page and the window's last frame are the ships view
// (an arena of many colours, not a sand grid's); the page's hint names
// the ships' controls, and the window shows the arena's wall.
func TestShipsPageWindowAndBot(t *testing.T) {
	const until = 600
	xvfb := need(t, "the window runs under Xvfb", "xvfb-run")
	win := build(t, "window", "..", "./window")
	d := startDemo(t, "--game", "ships", "--players", "3", "--player-timeout", "30s")
	b := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	u := strconv.Itoa(until)
	page := tab(t, b, d.url+"?timeout=30s&until-tick="+u)
	if hint := eval[string](t, page, `document.getElementById("hint").textContent`); !bytes.Contains([]byte(hint), []byte("fires")) {
		t.Errorf("the ships page's hint: %q", hint)
	}
	shot := filepath.Join(t.TempDir(), "ships-window.png")
	w := startPlayer(ctx, []string{"LIBGL_ALWAYS_SOFTWARE=1"}, xvfb, "-a", "-s", "-screen 0 1024x768x24",
		win, "--game", "ships", "--join", d.code, "--relay", d.relay, "--until-tick", u, "--screenshot", shot, "--mute", "--timeout", "30s")
	bot := startPlayer(ctx, nil, rewindBin(t), "play", "--headless", "--game", "ships", "--input", "random", "--join", d.code,
		"--relay", d.relay, "--until-tick", u, "--status", "0", "--log-level", "warn", "--timeout", "30s")
	st := waitStatus(t, page, "the tab reaches the until tick", 3*time.Minute, func(st map[string]string) bool {
		return st["state"] == "done"
	})
	screenshot(t, page, "ships-page.png")
	wl, bl := w.result(t, "window"), bot.result(t, "rewind play")
	if st["verified_tick"] != u || wl["verified_tick"] != u || bl["verified_tick"] != u {
		t.Fatalf("tab %v; window %v; bot %v", st, wl, bl)
	}
	if st["verified_hash"] != bl["verified_hash"] || wl["verified_hash"] != bl["verified_hash"] {
		t.Errorf("tick %s: tab hash %s, window %s, bot %s", u, st["verified_hash"], wl["verified_hash"], bl["verified_hash"])
	}
	if ids := map[string]bool{st["player"]: true, wl["player"]: true, bl["player"]: true}; len(ids) != 3 {
		t.Errorf("players: tab %s, window %s, bot %s", st["player"], wl["player"], bl["player"])
	}
	t.Logf("tick %s: tab %v; window %v; bot %v", u, st, wl, bl)
	pic, err := chromedp.Run(page, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"page": pic, "window": mustRead(t, shot)} {
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s's screenshot: %v", name, err)
		}
		if n := colours(img); n < 5 {
			t.Errorf("%s's screenshot has %d colours: not the ships view", name, n)
		}
		if name != "window" {
			continue
		}
		// The arena's wall, drawn unscaled in the window (ships' draw
		// list: a 1-pixel outline of its 600×600 canvas, whose top is
		// at y 52 below the HUD: view.hudHeight).
		if r, g, b, _ := img.At(300, 52).RGBA(); r>>8 != 90 || g>>8 != 90 || b>>8 != 110 {
			t.Errorf("the window's pixel (300, 52) is (%d, %d, %d), not the arena's wall", r>>8, g>>8, b>>8)
		}
	}
	if dir := os.Getenv("REWIND_SCREENSHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "ships-window.png"), mustRead(t, shot), 0o644)
	}
}

// mustRead returns the file's bytes or fails the test.
func mustRead(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
