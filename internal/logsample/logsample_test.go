package logsample

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestSampled: a flood of refusals logs one line per reason per second,
// the next line saying how many were not logged.
func TestSampled(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	var l Sampler
	now := time.Unix(100, 0)
	for i := range 3000 { // 3 s of 1,000 a second, two reasons
		at := now.Add(time.Duration(i) * time.Millisecond)
		l.Log(log, at, "refused", "reason", "conn cap", "conn", i)
		l.Log(log, at, "refused", "reason", "rate cap", "conn", i)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines for 6,000 refusals in 3 s, want 6:\n%s", len(lines), out.String())
	}
	if !strings.Contains(lines[2], "unlogged=999") || strings.Contains(lines[0], "unlogged") {
		t.Fatalf("counts of unlogged refusals:\n%s", out.String())
	}
}
