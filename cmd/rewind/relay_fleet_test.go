package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testutil"
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
