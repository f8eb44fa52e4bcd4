package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"
)

// TestRun: the program records its match, verifies the file (every tick)
// and seeks in it to a tick whose hash is the recorded one.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	v := regexp.MustCompile(`verify: game=counter ticks=(\d+) last_tick=(\d+) verified=true\n`).FindStringSubmatch(out.String())
	if v == nil || v[1] == "0" {
		t.Fatalf("output:\n%s\nwant a verified replay of some ticks", out.String())
	}
	s := regexp.MustCompile(`hash ([0-9a-f]{16}), recorded ([0-9a-f]{16})\n`).FindStringSubmatch(out.String())
	if s == nil || s[1] != s[2] {
		t.Fatalf("output:\n%s\nwant the seek's hash to be the recorded one", out.String())
	}
}
