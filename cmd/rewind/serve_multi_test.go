package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestServeRooms runs `rewind serve --rooms 3` in-process: it prints
// udp= and then three room= lines (the first the --room code); two
// `rewind play --connect --room CODE` per room in two rooms end with the
// same hash within a room; a code no room has is refused in one line;
// serve's last line counts the rooms and the joins.
func TestServeRooms(t *testing.T) {
	checkLeaks(t)
	testutil.SkipSockets(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	served := false
	defer func() { // a failed test still ends serve before the leak check
		if !served {
			cancel()
			<-done
		}
	}()
	go func() {
		done <- serve(ctx, []string{"--game", "sand", "--udp", "127.0.0.1:0", "--grid", "32", "--rooms", "3", "--room", "k3f9qx", "--players", "2", "--status", "0"}, pw, io.Discard)
		pw.Close()
	}()
	lines := make(chan string, 64)
	var out bytes.Buffer // every line after the rooms'
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var udp string
	var rooms []string
	for len(rooms) < 3 {
		line, ok := <-lines
		if !ok {
			cancel()
			served = true
			t.Fatalf("serve ended after udp=%q rooms=%v: %v", udp, rooms, <-done)
		}
		if v, ok := strings.CutPrefix(line, "udp="); ok && udp == "" && len(rooms) == 0 {
			udp = v
		} else if v, ok := strings.CutPrefix(line, "room="); ok && udp != "" {
			rooms = append(rooms, v)
		} else {
			cancel()
			served = true
			t.Fatalf("unexpected line %q (udp=%q rooms=%v): %v", line, udp, rooms, <-done)
		}
	}
	if rooms[0] != "K3F9QX" || rooms[1] == rooms[2] {
		cancel()
		served = true
		t.Fatalf("udp=%q rooms=%v (%v)", udp, rooms, <-done)
	}
	rest := make(chan struct{})
	go func() {
		for l := range lines {
			out.WriteString(l + "\n")
		}
		close(rest)
	}()

	type result struct {
		room           int
		code           int
		stdout, stderr string
	}
	res := make(chan result, 4)
	var wg sync.WaitGroup
	for room := range 2 {
		for range 2 {
			wg.Go(func() {
				c, o, e := runCmd("play", "--headless", "--connect", udp, "--room", strings.ToLower(rooms[room]), "--grid", "32",
					"--until-tick", "60", "--seed", string(rune('1'+room)), "--status", "0")
				res <- result{room, c, o, e}
			})
		}
	}
	wg.Wait()
	close(res)
	hashes := map[int][]string{}
	for r := range res {
		if r.code != 0 {
			t.Fatalf("room %d player: exit %d\n%s", r.room, r.code, r.stderr)
		}
		m := kv(lastLine(r.stdout))
		if m["verified_tick"] != "60" || m["desyncs"] != "0" {
			t.Fatalf("room %d: last line %q", r.room, lastLine(r.stdout))
		}
		hashes[r.room] = append(hashes[r.room], m["verified_hash"])
	}
	for room, hs := range hashes {
		if len(hs) != 2 || hs[0] != hs[1] {
			t.Errorf("room %d: hashes %v, want two equal", room, hs)
		}
	}
	code, _, stderr := runCmd("play", "--headless", "--connect", udp, "--room", "ZZZZZZ", "--grid", "32", "--until-tick", "10")
	if code != 1 || !strings.Contains(stderr, "no such room") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 && !strings.Contains(lastLine(stderr), "no such room") {
		t.Errorf("play --room ZZZZZZ: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runCmd("play", "--headless", "--room", "K3F9QX"); code != 2 || !strings.Contains(stderr, "--connect") {
		t.Errorf("--room without --connect: exit %d, %q", code, stderr)
	}
	cancel()
	served = true
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	<-copied
	<-rest
	m := kv(lastLine(out.String()))
	if m["udp"] != udp || m["rooms"] != "3" || m["joins"] != "4" || m["matches"] != "2" || m["refusals"] == "0" {
		t.Errorf("serve's last line %q", lastLine(out.String()))
	}
}
