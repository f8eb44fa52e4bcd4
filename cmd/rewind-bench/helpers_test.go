package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// checkLeaks fails t if goroutines started during the test outlive it.
func checkLeaks(t *testing.T) {
	t.Helper()
	// os/signal starts one goroutine for good on first use.
	_, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt)
	stopSignals()
	testutil.CheckGoroutines(t, 10*time.Second)
}

// runCmd runs rewind-bench with args in-process.
func runCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// lastLine is the last line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// kv is line's key=value pairs.
func kv(line string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

var (
	rewindOnce sync.Once
	rewindErr  error
)

// needRewind builds the rewind binary once (into a directory removed
// when the tests end: TestMain) and names it in $REWIND_BIN, for the
// benchmarks that run it (bench relays, bench abuse's serve attack).
func needRewind(t *testing.T) {
	t.Helper()
	rewindOnce.Do(func() {
		if os.Getenv(rewindEnv) != "" {
			return
		}
		bin := filepath.Join(rewindDir, "rewind")
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		out, err := exec.Command(goBin, "build", "-o", bin, "../rewind").CombinedOutput()
		if err != nil {
			rewindErr = err
			t.Logf("%s", out)
			return
		}
		rewindErr = os.Setenv(rewindEnv, bin)
	})
	if rewindErr != nil {
		t.Fatalf("building rewind: %v", rewindErr)
	}
}
