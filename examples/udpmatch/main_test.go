package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"
)

// TestRun: the program hosts and plays its match over UDP on 127.0.0.1,
// and both players print the same hash of the same last tick.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("real UDP sockets: not under -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	m := regexp.MustCompile(`player 0: verified tick (\d+), world hash ([0-9a-f]{16})\nplayer 1: verified tick (\d+), world hash ([0-9a-f]{16})\n`).FindStringSubmatch(out.String())
	if m == nil || m[1] != m[3] || m[2] != m[4] || m[1] == "0" {
		t.Fatalf("output:\n%s\nwant both players at one tick past 0 with one hash", out.String())
	}
}
