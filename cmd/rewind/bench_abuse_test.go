package main

import (
	"strings"
	"testing"
)

// TestBenchAbuse: the command runs the chosen attacks and ends with one
// attack= line each (the suite itself is ./internal/attack's test), the
// attack on its own serve (issue 30 item 8) among them.
func TestBenchAbuse(t *testing.T) {
	for _, name := range []string{"big_frame", "serve_json_metrics"} {
		code, stdout, stderr := runCmd("bench", "abuse", "--short", "--attack", name)
		if code != 0 || lastLine(stdout) == "" || !strings.HasPrefix(lastLine(stdout), "attack="+name+" held=true ") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	}
	if code, _, _ := runCmd("bench", "abuse", "--attack", "nope"); code != 2 {
		t.Fatalf("unknown attack: exit %d", code)
	}
}
