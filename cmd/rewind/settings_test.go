package main

import (
	"strings"
	"sync"
	"testing"
)

// TestPlayHostSettings runs `rewind serve --grid 48 --tick-rate 30` and
// two players over UDP: one given no --grid or --tick-rate (it plays the
// host's settings, from the welcome) and one given the host's explicitly.
// Both end at tick 90 with the same hash, and the first logs the host's
// grid and tick rate. A player given another --grid is refused as before.
func TestPlayHostSettings(t *testing.T) {
	checkLeaks(t)
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "48", "--tick-rate", "30", "--players", "2")
	defer stop()
	code, _, stderr := runCmd("play", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "90", "--timeout", "2s")
	if code == 0 || !strings.Contains(stderr, "incompatible game") {
		t.Errorf("play --grid 32 against a 48-cell host: exit %d\n%s", code, stderr)
	}
	args := [][]string{{}, {"--grid", "48", "--tick-rate", "30"}}
	out, errs := make([]string, len(args)), make([]string, len(args))
	var wg sync.WaitGroup
	for i, extra := range args {
		wg.Go(func() {
			a := append([]string{"play", "--headless", "--connect", udp, "--until-tick", "90", "--seed", "5"}, extra...)
			code, o, e := runCmd(a...)
			if code != 0 {
				t.Errorf("%q: exit %d\n%s", a, code, e)
			}
			out[i], errs[i] = lastLine(o), e
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	a, b := kv(out[0]), kv(out[1])
	if a["verified_tick"] != "90" || a["verified_hash"] != b["verified_hash"] || a["desyncs"] != "0" {
		t.Errorf("the player of the host's settings: %q; the one given them: %q", out[0], out[1])
	}
	if !strings.Contains(errs[0], "grid=48 tick_rate=30") {
		t.Errorf("the player of the host's settings does not log them:\n%s", errs[0])
	}
}

// TestReplayHostSettings: against `serve --grid 48 --tick-rate 30`, a
// player and a spectator given no --grid or --tick-rate (they take the
// host's settings from the welcome) record the match; `rewind replay`
// verifies both files with no flag (the replay's header holds the
// welcome's match settings, format version 2, and its settings text says
// them too).
func TestReplayHostSettings(t *testing.T) {
	dir := t.TempDir()
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "48", "--tick-rate", "30", "--players", "1", "--status", "0")
	defer stop()
	files := []string{dir + "/player.rwreplay", dir + "/spectator.rwreplay"}
	out, errs, codes := make([]string, 2), make([]string, 2), make([]int, 2)
	var wg sync.WaitGroup
	for i, cmd := range []string{"play", "watch"} {
		wg.Go(func() {
			until := "120"
			if cmd == "watch" {
				until = "90"
			}
			codes[i], out[i], errs[i] = runCmd(cmd, "--headless", "--connect", udp, "--until-tick", until, "--status", "0", "--record", files[i])
			out[i] = lastLine(out[i])
		})
	}
	wg.Wait()
	for i := range 2 {
		if codes[i] != 0 {
			t.Fatalf("%d: exit %d %q\n%s", i, codes[i], out[i], errs[i])
		}
	}
	if !strings.Contains(errs[1], "grid=48 tick_rate=30") {
		t.Errorf("the spectator does not log the host's settings:\n%s", errs[1])
	}
	for _, f := range files {
		code, o, e := runCmd("replay", f)
		if code != 0 || kv(lastLine(o))["verified"] != "true" || !strings.Contains(e, "grid=48 tick-rate=30") {
			t.Fatalf("replay %s: exit %d %q\n%s", f, code, lastLine(o), e)
		}
	}
}
