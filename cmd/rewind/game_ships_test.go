package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
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

// TestReplayShips: serve --game ships --record DIR writes a replay of its
// match and play --game ships --record FILE one of what the player
// verified; rewind replay verifies both (from the ships game the header
// names), and rewind diff finds no difference between them.
func TestReplayShips(t *testing.T) {
	dir := t.TempDir()
	udp, _, stop := startServe(t, "--game", "ships", "--udp", "127.0.0.1:0", "--record", dir, "--status", "0")
	file := filepath.Join(t.TempDir(), "player.rwreplay")
	code, out, stderr := runCmd("play", "--game", "ships", "--headless", "--connect", udp, "--input", "random", "--until-tick", "240", "--status", "0", "--record", file)
	if code != 0 {
		t.Fatalf("play: exit %d\n%s\n%s", code, out, stderr)
	}
	stop()
	matches, _ := filepath.Glob(filepath.Join(dir, "match-*.rwreplay"))
	if len(matches) != 1 {
		t.Fatalf("serve --record wrote %v", matches)
	}
	for _, f := range []string{matches[0], file} {
		code, out, stderr := runCmd("replay", f)
		if m := kv(lastLine(out)); code != 0 || m["verified"] != "true" || m["replay_ticks"] == "0" {
			t.Fatalf("rewind replay %s: exit %d %q\n%s", f, code, lastLine(out), stderr)
		}
		if !strings.Contains(stderr, "game=ships") {
			t.Errorf("rewind replay %s logged no game=ships:\n%s", f, stderr)
		}
	}
	if code, out, stderr := runCmd("diff", matches[0], file); code != 0 || out != "" {
		t.Fatalf("rewind diff of the server's and the player's replays: exit %d %q %s", code, out, stderr)
	}
}

// TestDemoShips: rewind demo --game ships hosts a ships room; its page
// names the game and the play flags (--game ships), and two players
// joining by code with those flags (random and scripted bots) reach tick
// 120 with the same hash.
func TestDemoShips(t *testing.T) {
	testutil.SkipSockets(t)
	checkLeaks(t)
	d := startCommand(t, demo, []string{"--http", "127.0.0.1:0", "--game", "ships", "--players", "2", "--no-page"}, "room", "relay", "url")
	code, relayURL := d.vals["room"], d.vals["relay"]
	resp, err := http.Get(d.vals["url"])
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "A ships match") || !strings.Contains(string(page), "--relay "+relayURL+" --game ships") {
		t.Errorf("the demo's page:\n%s", page)
	}
	args := []string{"--headless", "--join", code, "--relay", relayURL, "--game", "ships", "--until-tick", "120", "--status", "0"}
	checkSameHash(t, runPlayers(append(args, "--input", "random"), append(args, "--input", "scripted")), "120")
	if m := kv(lastLine(d.stop(t))); m["joins"] != "2" || m["matches"] != "1" {
		t.Errorf("demo's last line %v", m)
	}
}
