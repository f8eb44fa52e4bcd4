package main

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport/webrtc"
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

// TestWatchByRoomCode: rewind watch --join CODE --relay URL watches a room's
// match over WebRTC as a spectator; its verified_hash at --until-tick is
// the server's hash of that tick, and the host counts it as no player.
func TestWatchByRoomCode(t *testing.T) {
	checkLeaks(t)
	url, _ := startTestRoomRelay(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	hashes := newTestHashes()
	h, err := rooms.Host[sand.Input](ctx, sand.New(sandTestGrid), rooms.HostOptions{
		Relay:  url,
		Server: server.Config{StartPlayers: 1, OnTick: hashes.onTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	run := runTestHost(ctx, h)
	p := joinTestRoom(ctx, t, url, h.Code(), webrtc.Config{})
	code, out, stderr := runCmd("watch", "--headless", "--join", h.Code(), "--relay", url, "--grid", fmt.Sprint(sandTestGrid),
		"--until-tick", "300", "--status", "0")
	got := kv(lastLine(out))
	want, ok := hashes.hash(300)
	if code != 0 || !ok || got["verified_tick"] != "300" || got["verified_hash"] != fmt.Sprintf("%016x", want) {
		t.Fatalf("watch: exit %d %q; the server's hash of tick 300 %016x (%v)\n%s", code, lastLine(out), want, ok, stderr)
	}
	if st := h.Stats(); st.Match.Joins != 1 || st.Match.Spectators != 1 {
		t.Errorf("host: %d joins, %d spectators", st.Match.Joins, st.Match.Spectators)
	}
	p.close(t)
	run.stop(t)
}

// TestWatchToTheEnd: the match ends (its only player leaves) before the
// spectators' --until-tick: each, the delayed one too, ends with play's
// last line at the match's last tick, exit 0; that tick is the last of
// the server's own recording of the match, and their hashes agree.
func TestWatchToTheEnd(t *testing.T) {
	dir := t.TempDir()
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "32", "--players", "1", "--status", "0", "--record", dir)
	defer stop()
	var wg sync.WaitGroup
	lines := make([]string, 3)
	codes := make([]int, 3)
	errs := make([]string, 3)
	for i, args := range [][]string{
		{"play", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "180", "--status", "0"},
		{"watch", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "100000", "--status", "0"},
		{"watch", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "100000", "--status", "0", "--delay", "1s"},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out, stderr := runCmd(args...)
			codes[i], lines[i], errs[i] = code, lastLine(out), stderr
		}()
	}
	wg.Wait()
	if codes[0] != 0 {
		t.Fatalf("play: exit %d %q\n%s", codes[0], lines[0], errs[0])
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.rwreplay"))
	if len(files) != 1 {
		t.Fatalf("the server recorded %d files", len(files))
	}
	code, out, stderr := runCmd("replay", files[0])
	last := kv(lastLine(out))["replay_ticks"]
	if code != 0 || last == "" {
		t.Fatalf("replay of the server's recording: exit %d %q\n%s", code, lastLine(out), stderr)
	}
	w1, w2 := kv(lines[1]), kv(lines[2])
	for i, w := range []map[string]string{w1, w2} {
		if codes[i+1] != 0 || w["verified_tick"] != last {
			t.Fatalf("watch %d: exit %d %q; the match's last tick %s\n%s", i, codes[i+1], lines[i+1], last, errs[i+1])
		}
	}
	if w1["verified_hash"] != w2["verified_hash"] {
		t.Fatalf("the spectators' last hashes differ: %q, %q", lines[1], lines[2])
	}
	t.Logf("both spectators ended at the match's last tick %s (play stopped at 180)", last)
}

// TestPlayToTheEnd: serve stops on purpose (--duration) while two players
// and a spectator are in its match: the match ends (Host.End), each of
// them gets every tick up to the last, then the goodbye that names it, and
// ends with play's last line at that tick, exit 0; that tick is the last
// of the server's own recording, and all three hashes agree.
func TestPlayToTheEnd(t *testing.T) {
	dir := t.TempDir()
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "32", "--players", "2", "--status", "0",
		"--record", dir, "--duration", "4s")
	defer stop()
	var wg sync.WaitGroup
	lines := make([]string, 3)
	codes := make([]int, 3)
	errs := make([]string, 3)
	for i, cmd := range []string{"play", "play", "watch"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out, stderr := runCmd(cmd, "--headless", "--connect", udp, "--grid", "32", "--until-tick", "100000", "--status", "0")
			codes[i], lines[i], errs[i] = code, lastLine(out), stderr
		}()
	}
	wg.Wait()
	files, _ := filepath.Glob(filepath.Join(dir, "*.rwreplay"))
	if len(files) != 1 {
		t.Fatalf("the server recorded %d files", len(files))
	}
	code, out, stderr := runCmd("replay", files[0])
	last := kv(lastLine(out))["replay_ticks"]
	if code != 0 || last == "" {
		t.Fatalf("replay of the server's recording: exit %d %q\n%s", code, lastLine(out), stderr)
	}
	for i := range lines {
		if codes[i] != 0 || kv(lines[i])["verified_tick"] != last {
			t.Fatalf("session %d: exit %d %q; the match's last tick %s\n%s", i, codes[i], lines[i], last, errs[i])
		}
		if h := kv(lines[i])["verified_hash"]; h != kv(lines[0])["verified_hash"] {
			t.Fatalf("last hashes differ: %q, %q", lines[0], lines[i])
		}
	}
	t.Logf("two players and a spectator ended at the match's last tick %s", last)
}

// TestPlayToTheEndRooms: `serve --rooms` stopped on purpose (--duration)
// ends its rooms' matches the same way (host.Multi.End): two players of a
// room both end at the match's last tick, exit 0, with the same hash.
func TestPlayToTheEndRooms(t *testing.T) {
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "32", "--rooms", "2", "--room", "k3f9qx",
		"--players", "2", "--status", "0", "--duration", "4s")
	defer stop()
	var wg sync.WaitGroup
	lines := make([]string, 2)
	codes := make([]int, 2)
	errs := make([]string, 2)
	for i := range lines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out, stderr := runCmd("play", "--headless", "--connect", udp, "--room", "k3f9qx", "--grid", "32",
				"--until-tick", "100000", "--status", "0")
			codes[i], lines[i], errs[i] = code, lastLine(out), stderr
		}()
	}
	wg.Wait()
	a, b := kv(lines[0]), kv(lines[1])
	for i := range lines {
		if codes[i] != 0 || kv(lines[i])["verified_tick"] == "" {
			t.Fatalf("player %d: exit %d %q\n%s", i, codes[i], lines[i], errs[i])
		}
	}
	if a["verified_tick"] != b["verified_tick"] || a["verified_hash"] != b["verified_hash"] {
		t.Fatalf("the players ended apart: %q, %q", lines[0], lines[1])
	}
	t.Logf("both players ended at the match's last tick %s", a["verified_tick"])
}

// TestWatchWarnsLongDelay: watch --delay beyond what a server of the
// default history grants (3 s) is warned about, a delay within it not.
func TestWatchWarnsLongDelay(t *testing.T) {
	silent, err := net.ListenPacket("udp", "127.0.0.1:0") // never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	for _, c := range []struct {
		delay string
		warn  bool
	}{{"5s", true}, {"3s", false}, {"0s", false}} {
		code, _, stderr := runCmd("watch", "--headless", "--connect", silent.LocalAddr().String(), "--delay", c.delay, "--timeout", "200ms", "--status", "0")
		if code != 1 {
			t.Fatalf("--delay %s against a silent server: exit %d\n%s", c.delay, code, stderr)
		}
		if got := strings.Contains(stderr, "level=WARN msg=\"--delay is longer than"); got != c.warn {
			t.Errorf("--delay %s: warned %t, want %t\n%s", c.delay, got, c.warn, stderr)
		}
	}
}

// TestWatchRefusesPlayerFlags: rewind watch has none of a player's flags
// (a spectator sends no input, name, ready flag or chat: the server would
// drop them): each is refused with exit status 2, and -h does not list
// them.
func TestWatchRefusesPlayerFlags(t *testing.T) {
	player := [][]string{{"--input", "random"}, {"--seed", "3"}, {"--input-delay", "2"}, {"--name", "x"},
		{"--ready"}, {"--chat-file", "chat.txt"}, {"--lockstep"}}
	for _, f := range player {
		args := append([]string{"watch", "--headless", "--connect", "127.0.0.1:9"}, f...)
		code, _, stderr := runCmd(args...)
		if code != 2 || !strings.Contains(stderr, "flag provided but not defined: "+strings.TrimPrefix(f[0], "-")) {
			t.Errorf("watch %s: exit %d\n%s", f[0], code, stderr)
		}
	}
	_, _, help := runCmd("watch", "-h")
	for _, f := range player {
		if strings.Contains(help, "\n  "+strings.TrimPrefix(f[0], "-")+" ") || strings.Contains(help, "\n  "+strings.TrimPrefix(f[0], "-")+"\n") {
			t.Errorf("watch -h lists %s:\n%s", f[0], help)
		}
	}
	if !strings.Contains(help, "\n  -delay duration") {
		t.Fatalf("watch -h does not list --delay:\n%s", help)
	}
}
