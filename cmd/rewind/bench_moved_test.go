package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBenchMoved: with no rewind-bench to run (none beside the binary, on
// PATH or in the working directory's cmd/), `rewind bench NAME` says
// where the benchmarks went and exits 2, whatever NAME.
func TestBenchMoved(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{{"bench"}, {"bench", "fleet", "--matches", "1"}} {
		code, stdout, stderr := runCmd(args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "rewind-bench NAME") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("rewind %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

// TestBenchRunsRewindBench: `rewind bench NAME ARGS` runs the rewind-bench
// on PATH with NAME ARGS, its output and exit status the command's (the
// command lines of the issues' contracts keep working).
func TestBenchRunsRewindBench(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands for rewind-bench")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"args=$*\"\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, "rewind-bench"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	code, stdout, stderr := runCmd("bench", "webdoom", "--rounds", "1")
	if code != 3 || stdout != "args=webdoom --rounds 1\n" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 3, the script's line and nothing on stderr", code, stdout, stderr)
	}
}
