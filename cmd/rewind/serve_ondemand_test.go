package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomcode"
)

// TestServeOnDemandCommands: `rewind serve --relay URL --max-matches 2
// --on-demand` registers a match server (slots=2); three `rewind open`:
// two print room=CODE, the third fails "full" with the count; a player
// plays a match in the first room and leaves, which frees its slot: a
// fourth open gets a new room, and the ended room's code is refused.
func TestServeOnDemandCommands(t *testing.T) {
	checkLeaks(t)
	testutil.SkipSockets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url, wait := startRelayCmd(ctx, t, "--http", "127.0.0.1:0", "--turn", "none")
	defer func() { cancel(); wait() }()
	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serve(sctx, []string{"--game", "sand", "--grid", "32", "--relay", url, "--max-matches", "2", "--on-demand", "--status", "0"}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() || sc.Text() != "slots=2" {
		scancel()
		t.Fatalf("serve's first line %q, want slots=2: %v", sc.Text(), <-served)
	}
	lines := make(chan string, 8)
	go func() {
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()

	var codes []string
	for i := range 2 {
		if i == 0 { // --key: room= then key=
			code, out, stderr := runCmd("open", "--relay", url, "--key")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != 0 || len(lines) != 2 || len(kv(lines[0])["room"]) != roomcode.DefaultLen || len(kv(lines[1])["key"]) != 32 {
				t.Fatalf("open --key: exit %d, %q %q", code, out, stderr)
			}
			codes = append(codes, kv(lines[0])["room"])
			continue
		}
		code, out, stderr := runCmd("open", "--relay", url)
		c, ok := strings.CutPrefix(strings.TrimSpace(out), "room=")
		if code != 0 || !ok || len(c) != roomcode.DefaultLen {
			t.Fatalf("open: exit %d, %q %q", code, out, stderr)
		}
		codes = append(codes, c)
	}
	code, out, stderr := runCmd("open", "--relay", url)
	if code != 1 || out != "" || !strings.Contains(stderr, "full") || !strings.Contains(stderr, "2 of 2 slots in use") {
		t.Fatalf("third open: exit %d, %q %q; want full, 2 of 2 slots in use", code, out, stderr)
	}

	c, o, e := runCmd("play", "--headless", "--join", codes[0], "--relay", url, "--grid", "32", "--until-tick", "30", "--status", "0")
	if c != 0 || kv(lastLine(o))["verified_tick"] != "30" {
		t.Fatalf("play in %s: exit %d %q\n%s", codes[0], c, lastLine(o), e)
	}
	var fresh string
	testutil.WaitUntil(ctx, t, "a slot freed by the ended match", func() bool {
		code, out, _ := runCmd("open", "--relay", url)
		fresh, _ = strings.CutPrefix(strings.TrimSpace(out), "room=")
		return code == 0
	})
	if fresh == codes[0] || fresh == codes[1] {
		t.Errorf("new room %s, had %v", fresh, codes)
	}
	c, _, e = runCmd("play", "--headless", "--join", codes[0], "--relay", url, "--grid", "32", "--until-tick", "30", "--status", "0")
	if c != 1 || !strings.Contains(e, "has ended") {
		t.Errorf("play in the ended room: exit %d %q", c, e)
	}
	if code, _, stderr := runCmd("serve", "--game", "sand", "--on-demand"); code != 2 || !strings.Contains(stderr, "--relay") {
		t.Errorf("--on-demand without --relay: exit %d %q", code, stderr)
	}
	scancel()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
	last := ""
	for l := range lines {
		last = l
	}
	if m := kv(last); m["rooms"] != "0" || m["joins"] != "1" || m["matches"] != "1" {
		t.Errorf("serve's last line %q", last)
	}
}

// TestServeRelayRoomsUDP: `rewind serve --relay URL --rooms 2 --udp
// 127.0.0.1:0 --players 2` prints udp= then two room= lines; a player
// joining the second room by code and one connecting over UDP with that
// room's code play the same match (one verified hash at tick 30).
func TestServeRelayRoomsUDP(t *testing.T) {
	checkLeaks(t)
	testutil.SkipSockets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url, wait := startRelayCmd(ctx, t, "--http", "127.0.0.1:0", "--turn", "none")
	defer func() { cancel(); wait() }()
	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serve(sctx, []string{"--game", "sand", "--grid", "32", "--relay", url, "--rooms", "2", "--udp", "127.0.0.1:0", "--players", "2", "--status", "0"}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var head []string
	for len(head) < 3 && sc.Scan() {
		head = append(head, sc.Text())
	}
	go io.Copy(io.Discard, pr)
	udp, ok1 := strings.CutPrefix(strings.Join(head[:1], ""), "udp=")
	code, ok2 := strings.CutPrefix(strings.Join(head[2:], ""), "room=")
	if len(head) != 3 || !ok1 || !ok2 || !strings.HasPrefix(head[1], "room=") {
		scancel()
		t.Fatalf("serve's first lines %q: %v", head, <-served)
	}
	res := runPlayers(
		[]string{"--headless", "--join", code, "--relay", url, "--grid", "32", "--until-tick", "30", "--status", "0"},
		[]string{"--headless", "--connect", udp, "--room", code, "--grid", "32", "--until-tick", "30", "--status", "0"},
	)
	checkSameHash(t, res, "30")
	scancel()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
}
