package replayrun

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/simmatch"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/transport"
)

// record plays the match: 60 s of 4-player sand (grid 64, 5%
// loss), client 3 joining 20 s in; the server, client 0 and client 3
// (from the world it loaded) record replays into dir, in that order.
func record(t *testing.T, dir string) []string {
	t.Helper()
	paths := make([]string, 3)
	newRec := func(name string, path *string) *replay.Recorder {
		rec := &replay.Recorder{Game: "sand", Settings: Settings("sand", 64, 60)}
		rec.Open = func(codec.ReplayHeader) (io.Writer, error) {
			*path = filepath.Join(dir, name)
			return os.Create(*path)
		}
		return rec
	}
	srec, erec, lrec := newRec("server.rwreplay", &paths[0]), newRec("early.rwreplay", &paths[1]), newRec("late.rwreplay", &paths[2])
	cfg := simmatch.Config[sand.Input]{
		Players:  4,
		NewGame:  func() game.Game[sand.Input] { return sand.New(64) },
		Bot:      sand.Bot,
		Duration: 60 * time.Second,
		Link:     transport.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05},
		JoinAt:   map[int]time.Duration{3: 20 * time.Second},
		Seed:     2,
	}
	cfg.Server.StartPlayers = 3
	cfg.Server.Record = srec
	cfg.ClientConfig = func(i int, c *client.Config) {
		switch i {
		case 0:
			c.Record = erec
		case 3:
			c.Record = lrec
		}
	}
	if _, err := simmatch.Run(cfg); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*replay.Recorder{srec, erec, lrec} {
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// TestReplayVerifiesUnderWasm: the three replays of a 60 s match (the
// server's, an early player's, a late joiner's from the world it loaded)
// recorded natively verify natively and as js/wasm under Node (Go's
// go_js_wasm_exec), with the same result.
func TestReplayVerifiesUnderWasm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a js/wasm program with the toolchain and runs it under node (the full run keeps it)")
	}
	dir := t.TempDir()
	files := record(t, dir)
	var native []string
	for i, f := range files {
		res, err := VerifyFile(f, replay.Options{})
		want := uint32(3600)
		if i == 2 {
			want = 2000 // joined 20 s into 60
		}
		if err != nil || !res.Verified || res.Ticks < want || i == 2 && res.Ticks >= 3600 {
			t.Fatalf("%s natively: %+v %v", filepath.Base(f), res, err)
		}
		native = append(native, Line(res))
	}
	skip := t.Skip
	if os.Getenv("CI") != "" { // .ci/run installs Node: missing there is a failure
		skip = t.Fatal
	}
	if _, err := exec.LookPath("node"); err != nil {
		skip("node is not on PATH: the js/wasm half of the replay test needs Node")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		skip("go is not on PATH: cannot build replaycheck for js/wasm")
	}
	goroot, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	execWasm := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "go_js_wasm_exec")
	bin := filepath.Join(dir, "replaycheck.wasm")
	build := exec.Command(goBin, "build", "-o", bin, "./replaycheck")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building replaycheck for js/wasm: %v\n%s", err, out)
	}
	for i, f := range files {
		var stdout, stderr bytes.Buffer
		run := exec.Command(execWasm, bin, f)
		run.Stdout, run.Stderr = &stdout, &stderr
		if err := run.Run(); err != nil {
			t.Fatalf("replaycheck %s under node: %v\n%s%s", filepath.Base(f), err, stdout.Bytes(), stderr.Bytes())
		}
		if got := strings.TrimSpace(stdout.String()); got != native[i] {
			t.Fatalf("%s: wasm says %q, native %q", filepath.Base(f), got, native[i])
		}
		t.Logf("%s: native and js/wasm: %s", filepath.Base(f), native[i])
	}
}
