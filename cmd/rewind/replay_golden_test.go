package main

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/testing/simmatch"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/transport"
)

// goldenReplay is a server's replay of a 12 s, 2-player sand match (grid
// 32, a keyframe at tick 600) recorded by an earlier build and kept as a
// file: REWIND_WRITE_GOLDEN=1 go test -run TestReplayGolden ./cmd/rewind
// writes it again (only when a change is meant to break old replays).
const goldenReplay = "testdata/sand-golden.rwreplay"

// TestReplayGolden: a replay recorded by an earlier build verifies with
// this one (every tick's hash and the keyframe), so replays outlive the
// build that recorded them; a change to sand's Step, to the world's hash
// or to the replay format that breaks them fails here.
func TestReplayGolden(t *testing.T) {
	if os.Getenv("REWIND_WRITE_GOLDEN") != "" {
		writeGoldenReplay(t)
	}
	code, out, stderr := runCmd("replay", goldenReplay)
	if code != 0 || lastLine(out) != "replay_ticks=720 verified=true first_bad_tick=0 truncated=false" {
		t.Fatalf("rewind replay %s: exit %d %q\n%s", goldenReplay, code, lastLine(out), stderr)
	}
	if !strings.Contains(stderr, "keyframes=1") {
		t.Fatalf("the keyframe was not checked:\n%s", stderr)
	}
}

func writeGoldenReplay(t *testing.T) {
	r := &replay.Recorder{Game: "sand", Settings: "grid=32 tick-rate=60", Started: 1764547200000}
	path, _ := filepath.Abs(goldenReplay)
	r.Open = func(codec.ReplayHeader) (io.Writer, error) { return os.Create(path) }
	cfg := simmatch.Config[sand.Input]{Players: 2, NewGame: func() game.Game[sand.Input] { return sand.New(32) },
		Bot: sand.Bot, Duration: 12 * time.Second, Seed: 3,
		Link: transport.LinkConfig{Latency: 20 * time.Millisecond, Loss: 0.05}}
	cfg.Server.Record = r
	if _, err := simmatch.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d ticks, %d bytes", goldenReplay, r.Ticks(), r.Written())
}

// TestReplayDamaged: the golden replay cut short is not verified (exit 1,
// verified=false truncated=true, the reason saying where it was cut); with
// bytes flipped in a frame the last line names the tick and the cause
// (exit 1); random bytes and an empty file are not replays (exit 2,
// saying so).
func TestReplayDamaged(t *testing.T) {
	b, err := os.ReadFile(goldenReplay)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	code, out, stderr := runCmd("replay", write("half.rwreplay", b[:len(b)/2]))
	m := kv(lastLine(out))
	if code != 1 || m["verified"] != "false" || m["truncated"] != "true" || !strings.Contains(lastLine(out), `reason="codec: replay ends inside a frame`) {
		t.Errorf("half a replay: exit %d %q\n%s", code, lastLine(out), stderr)
	}
	flipped := bytes.Clone(b)
	for i := range 8 {
		flipped[len(b)*3/4+i] ^= 0xff
	}
	code, out, stderr = runCmd("replay", write("flipped.rwreplay", flipped))
	m = kv(lastLine(out))
	if code != 1 || m["verified"] != "false" || m["first_bad_tick"] == "0" ||
		!strings.Contains(lastLine(out), "reason=\"codec: corrupt replay: frame at tick "+m["first_bad_tick"]) {
		t.Errorf("8 bytes flipped: exit %d %q\n%s", code, lastLine(out), stderr)
	}
	if !strings.Contains(stderr, "did not verify at tick "+m["first_bad_tick"]+": ") {
		t.Errorf("8 bytes flipped: stderr's last line does not name the tick and the cause:\n%s", stderr)
	}
	noise := make([]byte, 4096)
	_, _ = rand.NewChaCha8([32]byte{1}).Read(noise)
	for name, data := range map[string][]byte{"noise.bin": noise, "empty.rwreplay": nil} {
		code, out, stderr = runCmd("replay", write(name, data))
		if code != 2 || !strings.Contains(stderr, name+": not a replay file") || out != "" {
			t.Errorf("%s: exit %d, stdout %q\n%s", name, code, out, stderr)
		}
	}
}
