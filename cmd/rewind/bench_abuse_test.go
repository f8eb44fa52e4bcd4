package main

import (
	"strings"
	"testing"
)

// TestBenchAbuse: the command runs the chosen attacks and ends with one
// attack= line each (the suite itself is ./internal/attack's test).
func TestBenchAbuse(t *testing.T) {
	code, stdout, stderr := runCmd("bench", "abuse", "--short", "--attack", "big_frame")
	if code != 0 || lastLine(stdout) == "" || !strings.HasPrefix(lastLine(stdout), "attack=big_frame held=true ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, _ := runCmd("bench", "abuse", "--attack", "nope"); code != 2 {
		t.Fatalf("unknown attack: exit %d", code)
	}
}
