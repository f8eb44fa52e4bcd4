package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"
)

// TestRun: the program starts a relay, hosts a room, joins it by code
// over WebRTC on 127.0.0.1 and prints the player's last verified tick.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets (WebSocket, WebRTC): not under -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, "", &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	m := regexp.MustCompile(`room ([0-9A-Z]{6,12}) at ws://127\.0\.0\.1:\d+/rooms\nplayer: verified tick=(\d+) hash=[0-9a-f]{16}, joined by code ([0-9A-Z]{6,12})\n`).FindStringSubmatch(out.String())
	if m == nil || m[1] != m[3] || m[2] == "0" {
		t.Fatalf("output:\n%s\nwant the room's code and a verified tick past 0", out.String())
	}
}
