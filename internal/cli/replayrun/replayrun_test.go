package replayrun

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/simmatch"
	"github.com/rewindnet/rewind/replay"
)

// TestReplayVerifiesUnderWasm: the three replays of a 60 s match (the
// server's, an early player's, a late joiner's from the world it loaded)
// recorded natively verify natively and as js/wasm under Node (Go's
// go_js_wasm_exec), with the same result.
func TestReplayVerifiesUnderWasm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a js/wasm program with the toolchain and runs it under node (the full run keeps it)")
	}
	dir := t.TempDir()
	rs, err := simmatch.RecordSand(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{rs.Server, rs.Early, rs.Late}
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
