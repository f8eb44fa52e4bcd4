package main

import (
	"strings"
	"testing"
)

// TestBenchMoved: `rewind bench NAME` says where the benchmarks went
// (rewind-bench NAME) and exits 2, whatever NAME.
func TestBenchMoved(t *testing.T) {
	for _, args := range [][]string{{"bench"}, {"bench", "fleet", "--matches", "1"}} {
		code, stdout, stderr := runCmd(args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "rewind-bench NAME") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("rewind %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}
