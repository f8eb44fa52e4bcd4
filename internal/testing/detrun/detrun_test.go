package detrun

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ticks is how long the cross-platform run lasts.
const ticks = 10000

// nativeTrace returns the script's hashes as sandtrace prints them.
func nativeTrace(t *testing.T) []string {
	t.Helper()
	lines := make([]string, 0, ticks)
	if err := Run(256, ticks, func(tick uint32, h uint64) {
		lines = append(lines, fmt.Sprintf("%d %016x", tick, h))
	}); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestScriptHasJoinsAndLeaves checks that the script exercises what it
// claims: four players, each joining, and leaves along the way.
func TestScriptHasJoinsAndLeaves(t *testing.T) {
	joins, leaves := 0, 0
	for p := range Players {
		was := false
		for tick := uint32(1); tick <= ticks; tick++ {
			now := presence(p, tick)
			if now && !was {
				joins++
			}
			if !now && was {
				leaves++
			}
			was = now
		}
	}
	if joins < Players+2 || leaves < 3 {
		t.Fatalf("script has %d joins and %d leaves; want at least %d and 3", joins, leaves, Players+2)
	}
	// Two runs in one process agree, and the world changes along the way.
	a, b := nativeTrace(t), nativeTrace(t)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatal("two native runs differ")
	}
	if a[100][len(a[100])-16:] == a[9000][len(a[9000])-16:] {
		t.Fatal("the world's hash did not change between tick 101 and 9001")
	}
}

// TestWasmMatchesNative runs the script natively and as js/wasm under Node
// (Go's go_js_wasm_exec) and compares the world's hash after every tick.
func TestWasmMatchesNative(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a js/wasm program with the toolchain and runs it under node (the full run keeps it)")
	}
	skip := t.Skip
	if os.Getenv("CI") != "" { // .ci/run installs Node: missing there is a failure
		skip = t.Fatal
	}
	if _, err := exec.LookPath("node"); err != nil {
		skip("node is not on PATH: the js/wasm half of the determinism test needs Node (.ci/run installs it)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		skip("go is not on PATH: cannot build the js/wasm trace program")
	}
	goroot, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	execWasm := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "go_js_wasm_exec")
	bin := filepath.Join(t.TempDir(), "sandtrace.wasm")
	build := exec.Command(goBin, "build", "-o", bin, "./sandtrace")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building sandtrace for js/wasm: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	run := exec.Command(execWasm, bin, "-ticks", fmt.Sprint(ticks))
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("running sandtrace under node: %v\n%s", err, stderr.Bytes())
	}
	var wasm []string
	var last string
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "ns_per_tick=") {
			last = l
		} else {
			wasm = append(wasm, l)
		}
	}
	start := time.Now()
	native := nativeTrace(t)
	nativeNs := time.Since(start).Nanoseconds() / ticks
	if len(wasm) != len(native) {
		t.Fatalf("wasm printed %d ticks, native %d", len(wasm), len(native))
	}
	for i := range native {
		if wasm[i] != native[i] {
			t.Fatalf("first difference at line %d: native %q, wasm %q", i+1, native[i], wasm[i])
		}
	}
	wasmNs, _ := strconv.ParseInt(strings.TrimPrefix(last, "ns_per_tick="), 10, 64)
	t.Logf("%d ticks, every hash identical natively and in js/wasm; time per tick (with its hash): wasm %d ns, native %d ns, ratio %.2f",
		ticks, wasmNs, nativeNs, float64(wasmNs)/float64(max(nativeNs, 1)))
}
