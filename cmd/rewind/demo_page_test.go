package main

import (
	"strings"
	"testing"
)

// TestDemoPageErrors: without go on PATH the demo says what is missing
// (and that --no-page runs without the page).
func TestDemoPageErrors(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	code, _, stderr := runCmd("demo", "--http", "127.0.0.1:0")
	if code != 1 || !strings.Contains(stderr, "no `go` on PATH") || !strings.Contains(stderr, "--no-page") {
		t.Errorf("without go: exit %d, %q", code, stderr)
	}
}
