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

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/examples/sand"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/simmatch"
	"github.com/rewindnet/rewind/transport"
)

// record plays a 10 s, 3-player sand match (grid 64) whose server and
// client 1 record replays into dir.
func record(t *testing.T, dir string) (server, player string) {
	t.Helper()
	newRec := func(name string, path *string) *rewind.ReplayRecorder {
		rec := &rewind.ReplayRecorder{Game: "sand", Settings: Settings("sand", 64, 60)}
		rec.Open = func(codec.ReplayHeader) (io.Writer, error) {
			*path = filepath.Join(dir, name)
			return os.Create(*path)
		}
		return rec
	}
	srec, crec := newRec("server.rwreplay", &server), newRec("player.rwreplay", &player)
	cfg := simmatch.Config[sand.Input]{
		Players:  3,
		NewGame:  func() game.Game[sand.Input] { return sand.New(64) },
		Bot:      sand.Bot,
		Duration: 10 * time.Second,
		Link:     transport.LinkConfig{Latency: 20 * time.Millisecond, Loss: 0.05},
		Seed:     2,
	}
	cfg.Server.Record = srec
	cfg.ClientConfig = func(i int, c *client.Config) {
		if i == 1 {
			c.Record = crec
		}
	}
	if _, err := simmatch.Run(cfg); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*rewind.ReplayRecorder{srec, crec} {
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return server, player
}

// TestReplayVerifiesUnderWasm: replays recorded natively verify natively
// and as js/wasm under Node (Go's go_js_wasm_exec), with the same result.
func TestReplayVerifiesUnderWasm(t *testing.T) {
	dir := t.TempDir()
	server, player := record(t, dir)
	var native []string
	for _, f := range []string{server, player} {
		res, err := VerifyFile(f, rewind.ReplayOptions{})
		if err != nil || !res.Verified || res.Ticks < 500 {
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
	for i, f := range []string{server, player} {
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
