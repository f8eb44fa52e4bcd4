package main

import (
	"path/filepath"
	"sync"
	"testing"
)

// TestWatch: rewind watch follows a match as a spectator (a delayed one
// too) and ends with play's last line: its verified_hash at --until-tick
// is the player's; a spectator's --record replay verifies.
func TestWatch(t *testing.T) {
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "32", "--players", "1", "--status", "0")
	defer stop()
	rec := filepath.Join(t.TempDir(), "spectator.rwreplay")
	var wg sync.WaitGroup
	lines := make([]string, 4)
	codes := make([]int, 4)
	errs := make([]string, 4)
	for i, args := range [][]string{
		{"play", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "240", "--status", "0"},
		// A player that stays on while the delayed spectator catches up
		// (the match ends when its last player leaves).
		{"play", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "420", "--status", "0"},
		{"watch", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "240", "--status", "0", "--record", rec},
		{"watch", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "240", "--status", "0", "--delay", "1s"},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out, stderr := runCmd(args...)
			codes[i], lines[i], errs[i] = code, lastLine(out), stderr
		}()
	}
	wg.Wait()
	want := kv(lines[0])
	for i := 2; i < 4; i++ {
		got := kv(lines[i])
		if codes[i] != 0 || got["verified_tick"] != "240" || got["verified_hash"] != want["verified_hash"] || got["rollbacks"] != "0" {
			t.Fatalf("watch %d: exit %d, %q; the player's %q\n%s", i, codes[i], lines[i], lines[0], errs[i])
		}
	}
	// The spectator's replay verifies, at the recorded pace too.
	code, out, stderr := runCmd("replay", rec, "--speed", "20")
	if code != 0 || kv(lastLine(out))["verified"] != "true" {
		t.Fatalf("replay of the spectator's recording: exit %d %q\n%s", code, lastLine(out), stderr)
	}
	for i := range 2 {
		if codes[i] != 0 {
			t.Fatalf("play %d: exit %d %q\n%s", i, codes[i], lines[i], errs[i])
		}
	}
}
