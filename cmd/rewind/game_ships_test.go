package main

import (
	"sync"
	"testing"
)

// TestServeAndPlayShips runs `rewind serve --game ships` and two `rewind
// play --game ships --headless` players in-process over UDP, one with the
// random bot and one with the scripted one (both steer, thrust and fire):
// both reach the tick asked for with the same verified hash and no
// desync.
func TestServeAndPlayShips(t *testing.T) {
	checkLeaks(t)
	udp, _, stop := startServe(t, "--game", "ships", "--udp", "127.0.0.1:0", "--players", "2", "--status", "0")
	var wg sync.WaitGroup
	lines := make([]map[string]string, 2)
	for i, input := range []string{"random", "scripted"} {
		wg.Go(func() {
			c, o, e := runCmd("play", "--game", "ships", "--headless", "--connect", udp, "--input", input, "--until-tick", "300", "--status", "0")
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
	for i, m := range lines {
		if m["verified_tick"] != "300" || m["desyncs"] != "0" || m["verified_hash"] != lines[0]["verified_hash"] {
			t.Fatalf("player %d: last line %v (player 0: %v)", i, m, lines[0])
		}
	}
}
