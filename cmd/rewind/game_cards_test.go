package main

import (
	"regexp"
	"sync"
	"testing"
)

// TestServeAndPlayCards runs `rewind serve --game cards` and two `rewind
// play --game cards --headless --until-tick` in-process over UDP: both
// end with the key=value line at the tick asked for, each with the hash of
// what that player sees — different for the two (each sees its own hand),
// after the repairs that hidden reads cost.
func TestServeAndPlayCards(t *testing.T) {
	checkLeaks(t)
	udp, _, stop := startServe(t, "--game", "cards", "--udp", "127.0.0.1:0", "--players", "2", "--status", "0")
	var wg sync.WaitGroup
	lines := make([]map[string]string, 2)
	for i := range lines {
		wg.Go(func() {
			c, o, e := runCmd("play", "--game", "cards", "--headless", "--connect", udp, "--until-tick", "300", "--status", "0")
			if c != 0 {
				t.Errorf("player %d: exit %d\n%s", i, c, e)
				return
			}
			lines[i] = kv(lastLine(o))
		})
	}
	wg.Wait()
	stop()
	if t.Failed() {
		return
	}
	hexHash := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for i, m := range lines {
		if m["verified_tick"] != "300" || !hexHash.MatchString(m["verified_hash"]) {
			t.Fatalf("player %d: last line %v", i, m)
		}
	}
	if lines[0]["verified_hash"] == lines[1]["verified_hash"] {
		t.Errorf("both players see the same: %s", lines[0]["verified_hash"])
	}
	if lines[0]["resyncs"] == "0" && lines[1]["resyncs"] == "0" {
		t.Errorf("no repairs: the deal reads the deck no client has")
	}
}
