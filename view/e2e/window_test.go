package e2e

import (
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// windowTick is where the window test's players stop (10 s at 60 Hz).
const windowTick = 600

// TestWindowAndBot: the desktop window (../window) under Xvfb with Mesa's
// software OpenGL and a native headless bot join one room of `rewind demo`
// (--no-page: the window needs no wasm), play to verified tick 600 and
// print the same verified hash there; the window saves its last frame.
func TestWindowAndBot(t *testing.T) {
	xvfb := need(t, "the window test runs the window under Xvfb", "xvfb-run")
	win := build(t, "window", "..", "./window")
	d := startDemo(t, "--no-page")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	shot := filepath.Join(t.TempDir(), "window.png")
	until := strconv.Itoa(windowTick)
	w := startPlayer(ctx, []string{"LIBGL_ALWAYS_SOFTWARE=1"}, xvfb, "-a", "-s", "-screen 0 1024x768x24",
		win, "--join", d.code, "--relay", d.relay, "--until-tick", until, "--screenshot", shot, "--mute")
	bot := startPlayer(ctx, nil, rewindBin(t), "play", "--headless", "--join", d.code, "--relay", d.relay,
		"--until-tick", until, "--status", "0", "--log-level", "warn")
	wl, bl := w.result(t, "window"), bot.result(t, "rewind play")
	if wl["verified_tick"] != until || bl["verified_tick"] != until || len(wl["verified_hash"]) != 16 {
		t.Fatalf("window %v; bot %v", wl, bl)
	}
	if wl["verified_hash"] != bl["verified_hash"] || wl["player"] == bl["player"] {
		t.Errorf("tick %s: window hash %s player %s, bot hash %s player %s", until, wl["verified_hash"], wl["player"], bl["verified_hash"], bl["player"])
	}
	if wk, bk := keys(w.lastLine()), keys(bot.lastLine()); wk != bk {
		t.Errorf("the window's last line has keys %s, rewind play's %s", wk, bk)
	}
	t.Logf("tick %s: window %v; bot %v", until, wl, bl)
	// Its status line on stderr (--status, 5 s by default: the first at
	// its first tick), the page's #status keys.
	if st := w.stderr.String(); !strings.Contains(st, "room="+d.code+" player=") || !strings.Contains(st, " verified_tick=") {
		t.Errorf("the window printed no status line on stderr:\n%s", st)
	}

	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("the window saved no screenshot: %v\n%s", err, w.stderr.String())
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	if b := img.Bounds(); b.Dx() < 256 || b.Dy() < 256 || colours(img) < 4 {
		t.Errorf("screenshot %s: %v with %d colours: not the sand view", shot, b, colours(img))
	}
	t.Logf("screenshot of the window: %s", shot)
	if dir := os.Getenv("REWIND_SCREENSHOTS"); dir != "" {
		b, _ := os.ReadFile(shot)
		_ = os.WriteFile(filepath.Join(dir, "window.png"), b, 0o644)
	}
}

// keys returns the keys of a key=value line, in order.
func keys(line string) string {
	var ks []string
	for _, f := range strings.Fields(line) {
		k, _, _ := strings.Cut(f, "=")
		ks = append(ks, k)
	}
	return strings.Join(ks, " ")
}

// colours counts the distinct colours of img, up to 64.
func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y && len(seen) < 64; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}
