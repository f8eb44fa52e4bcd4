package e2e

import (
	"context"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/view/internal/sandmatch"
	"github.com/rewindnet/rewind/world"
)

// TestWindowReplay: the window under Xvfb plays a server's replay of a
// 12 s sand match (recorded here, keyframes every 10 s as the server
// writes them) with --replay, starting at tick 650 (a seek from the
// keyframe at 600) at 4× speed, and stops at tick 700 with the hash
// VerifyReplay computes for that tick; its last frame is the sand view.
func TestWindowReplay(t *testing.T) {
	xvfb := need(t, "the window test runs the window under Xvfb", "xvfb-run")
	win := build(t, "window", "..", "./window")
	file := filepath.Join(t.TempDir(), "match.rwreplay")
	rec := &replay.Recorder{Game: "sand", Settings: sandmatch.Settings(64, 60),
		Open: func(replay.Header) (w io.Writer, err error) { return os.Create(file) }}
	if err := sandmatch.Record(sandmatch.Config{
		Players:  3,
		Grid:     64,
		Duration: 12 * time.Second,
		Link:     transport.LinkConfig{Latency: 30 * time.Millisecond, Loss: 0.02},
		Seed:     5,
		Record:   rec,
	}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	var want uint64
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sandmatch.Verify(b, replay.Options{UntilTick: 700, OnTick: func(tick uint32, w *world.World) error {
		want = w.Hash()
		return nil
	}}); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	shot := filepath.Join(t.TempDir(), "replay.png")
	w := startPlayer(ctx, []string{"LIBGL_ALWAYS_SOFTWARE=1"}, xvfb, "-a", "-s", "-screen 0 1024x768x24",
		win, "--replay", file, "--seek", "650", "--speed", "4", "--until-tick", "700", "--screenshot", shot)
	l := w.result(t, "window --replay")
	if l["tick"] != "700" || l["hash"] != fmt.Sprintf("%016x", want) || l["replay"] != "match.rwreplay" {
		t.Fatalf("window --replay: %q; want tick=700 hash=%016x", w.lastLine(), want)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("the window saved no screenshot: %v\n%s", err, w.stderr.String())
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	if b := img.Bounds(); b.Dx() < 128 || colours(img) < 4 {
		t.Errorf("screenshot %s: %v with %d colours: not the sand view", shot, b, colours(img))
	}
	t.Logf("window --replay: %s", w.lastLine())
	if dir := os.Getenv("REWIND_SCREENSHOTS"); dir != "" {
		b, _ := os.ReadFile(shot)
		_ = os.WriteFile(filepath.Join(dir, "window-replay.png"), b, 0o644)
	}
}
