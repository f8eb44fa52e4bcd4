package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/replayrun"
	"github.com/rewindnet/rewind/internal/simmatch"
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
	if code != 0 || lastLine(out) != "replay_ticks=720 verified=true first_bad_tick=0" {
		t.Fatalf("rewind replay %s: exit %d %q\n%s", goldenReplay, code, lastLine(out), stderr)
	}
	if !strings.Contains(stderr, "keyframes=1") {
		t.Fatalf("the keyframe was not checked:\n%s", stderr)
	}
}

func writeGoldenReplay(t *testing.T) {
	r := &replay.Recorder{Game: "sand", Settings: replayrun.Settings("sand", 32, 60), Started: 1764547200000}
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
