package main

import (
	"context"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/tools/attack"
)

// TestBenchAbuse: the command runs the chosen attacks and ends with one
// attack= line each (the suite itself is ./internal/tools/attack's test), the
// attack on its own serve (issue 30 item 8) among them; it exits 1 when
// an attack did not hold, after printing every line.
func TestBenchAbuse(t *testing.T) {
	needRewind(t) // serve_json_metrics runs rewind serve
	for _, name := range []string{"big_frame", "serve_json_metrics"} {
		code, stdout, stderr := runCmd("bench", "abuse", "--short", "--attack", name)
		if code != 0 || lastLine(stdout) == "" || !strings.HasPrefix(lastLine(stdout), "attack="+name+" held=true ") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	}
	if code, _, _ := runCmd("bench", "abuse", "--attack", "nope"); code != 2 {
		t.Fatalf("unknown attack: exit %d", code)
	}
	// An attack that breaks: its line is printed and the command fails.
	abuseTestAttacks = []attack.Attack{{Name: "always_breaks", Run: func(context.Context, attack.Config) attack.Result {
		return attack.Result{Name: "always_breaks"}
	}}}
	defer func() { abuseTestAttacks = nil }()
	code, stdout, stderr := runCmd("bench", "abuse", "--short", "--attack", "big_frame,always_breaks")
	if code != 1 || !strings.Contains(stdout, "attack=big_frame held=true ") || !strings.Contains(stdout, "attack=always_breaks held=false") ||
		!strings.Contains(stderr, "1 of 2 attacks did not hold: always_breaks") {
		t.Fatalf("an attack broke: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
