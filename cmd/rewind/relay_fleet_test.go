package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// startRelayCmd runs `rewind relay ARGS` in-process until ctx ends and
// returns the url= of its listening line, and a wait for it to return.
func startRelayCmd(ctx context.Context, t *testing.T, args ...string) (url string, wait func()) {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serveRelay(ctx, args, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("relay %v: %v (%v)", args, err, <-done)
	}
	go io.Copy(io.Discard, pr)
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "url="); ok {
			url = v
		}
	}
	if !strings.Contains(line, "relay=listening") || url == "" {
		t.Fatalf("relay's line %q", line)
	}
	return url, func() {
		if err := <-done; err != nil {
			t.Errorf("relay: %v", err)
		}
	}
}

// TestRelayFleetCommands runs three `rewind relay --redis URL` sharing
// one redis-server: `rewind serve --relay` hosts a sand match through the
// first, and two `rewind play --join` reach it through the second and the
// third (their signaling crosses Redis pub/sub), ending at the same
// verified tick with the same hash.
func TestRelayFleetCommands(t *testing.T) {
	checkLeaks(t)
	redisURL := testutil.StartRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var urls []string
	var waits []func()
	for range 3 {
		u, w := startRelayCmd(ctx, t, "--http", "127.0.0.1:0", "--turn", "none", "--redis", redisURL)
		urls, waits = append(urls, u), append(waits, w)
	}
	defer func() {
		cancel()
		for _, w := range waits {
			w()
		}
	}()
	sctx, scancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serve(sctx, []string{"--game", "sand", "--grid", "32", "--relay", urls[0], "--players", "2", "--status", "0"}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	code := ""
	for code == "" && sc.Scan() {
		code, _ = strings.CutPrefix(sc.Text(), "room=")
	}
	go io.Copy(io.Discard, pr)
	if code == "" {
		scancel()
		t.Fatalf("serve printed no room= line: %v", <-served)
	}
	var wg sync.WaitGroup
	type result struct {
		code           int
		stdout, stderr string
	}
	res := make([]result, 2)
	for i := range res {
		wg.Go(func() {
			c, o, e := runCmd("play", "--headless", "--join", code, "--relay", urls[1+i], "--grid", "32", "--until-tick", "90", "--status", "0")
			res[i] = result{c, o, e}
		})
	}
	wg.Wait()
	scancel()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
	var hashes []string
	for i, r := range res {
		if r.code != 0 {
			t.Fatalf("player through relay %d: exit %d\n%s", 1+i, r.code, r.stderr)
		}
		m := kv(lastLine(r.stdout))
		if m["verified_tick"] != "90" || m["desyncs"] != "0" {
			t.Fatalf("player %d: %q", i, lastLine(r.stdout))
		}
		hashes = append(hashes, m["verified_hash"])
	}
	if hashes[0] != hashes[1] {
		t.Errorf("hashes %v differ", hashes)
	}
}

// TestServeRelayRooms runs `rewind serve --relay URL --rooms 2`: two
// room= lines (the first the --room code), and a player joins each room
// by its code.
func TestServeRelayRooms(t *testing.T) {
	checkLeaks(t)
	testutil.SkipSockets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url, wait := startRelayCmd(ctx, t, "--http", "127.0.0.1:0", "--turn", "none")
	defer func() { cancel(); wait() }()
	sctx, scancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serve(sctx, []string{"--game", "sand", "--grid", "32", "--relay", url, "--rooms", "2", "--room", "K3F9QX", "--status", "0"}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var codes []string
	for len(codes) < 2 && sc.Scan() {
		if c, ok := strings.CutPrefix(sc.Text(), "room="); ok {
			codes = append(codes, c)
		}
	}
	lines := make(chan string, 8)
	go func() {
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	if len(codes) != 2 || codes[0] != "K3F9QX" || codes[1] == codes[0] {
		scancel()
		t.Fatalf("room lines %v: %v", codes, <-served)
	}
	for _, code := range codes {
		c, o, e := runCmd("play", "--headless", "--join", code, "--relay", url, "--grid", "32", "--until-tick", "30", "--status", "0")
		if c != 0 || kv(lastLine(o))["verified_tick"] != "30" {
			t.Fatalf("room %s: exit %d %q\n%s", code, c, lastLine(o), e)
		}
	}
	scancel()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
	last := ""
	for l := range lines {
		last = l
	}
	if m := kv(last); m["rooms"] != "2" || m["joins"] != "2" {
		t.Errorf("serve's last line %q", last)
	}
}

// TestServeRelayListCommands runs two `rewind relay --redis URL` and
// `rewind serve --relay URL1,URL2`: a match server registered at the
// first; the first relay stops; the server registers at the second and
// claims its room back under the same code, and `rewind play --join` of
// that code through the second relay plays to tick 30.
func TestServeRelayListCommands(t *testing.T) {
	checkLeaks(t)
	redisURL := testutil.StartRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var urls []string
	var waits []func()
	var stops []context.CancelFunc
	for range 2 {
		rctx, rcancel := context.WithCancel(ctx)
		u, w := startRelayCmd(rctx, t, "--http", "127.0.0.1:0", "--turn", "none", "--redis", redisURL, "--redis-ttl", "2s")
		urls, waits, stops = append(urls, u), append(waits, w), append(stops, rcancel)
	}
	defer func() {
		cancel()
		for _, w := range waits[1:] {
			w()
		}
	}()
	sctx, scancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serve(sctx, []string{"--game", "sand", "--grid", "32", "--relay", urls[0] + "," + urls[1], "--status", "0"}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	code := ""
	for code == "" && sc.Scan() {
		code, _ = strings.CutPrefix(sc.Text(), "room=")
	}
	go io.Copy(io.Discard, pr)
	if code == "" {
		scancel()
		t.Fatalf("serve printed no room= line: %v", <-served)
	}
	stops[0]()
	waits[0]()
	var out, stderr string
	testutil.WaitUntil(ctx, t, "a player of "+code+" through the second relay", func() bool {
		var c int
		c, out, stderr = runCmd("play", "--headless", "--join", code, "--relay", urls[1], "--grid", "32", "--until-tick", "30", "--status", "0")
		return c == 0 || !strings.Contains(stderr, "no room") // until the room is claimed back there
	})
	if m := kv(lastLine(out)); m["verified_tick"] != "30" || m["desyncs"] != "0" {
		t.Fatalf("player through the second relay: %q\n%s", lastLine(out), stderr)
	}
	scancel()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
}
