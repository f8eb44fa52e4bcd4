package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomcode"
)

// These tests run the room commands in-process, as a user would type them
// (`rewind demo`, `rewind relay`, `rewind serve --relay`, `rewind play
// --join` / `--connect`), over real sockets on 127.0.0.1 with ports picked
// by the kernel, and check the lines they print.

// bgCommand is a long-running command (demo, relay, serve) running in a
// goroutine until stop.
type bgCommand struct {
	vals   map[string]string
	cancel context.CancelFunc
	done   chan error
	rest   bytes.Buffer
	copied chan struct{}
}

// startCommand runs fn (a command's ctx-taking function) with args and
// reads its standard output until every key in want has appeared as a
// key=value field.
func startCommand(t *testing.T, fn func(context.Context, []string, io.Writer, io.Writer) error, args []string, want ...string) *bgCommand {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	c := &bgCommand{vals: map[string]string{}, cancel: cancel, done: make(chan error, 1), copied: make(chan struct{})}
	go func() {
		c.done <- fn(ctx, args, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var lines []string
	missing := func() bool {
		for _, k := range want {
			if _, ok := c.vals[k]; !ok {
				return true
			}
		}
		return false
	}
	for missing() && sc.Scan() {
		lines = append(lines, sc.Text())
		for _, f := range strings.Fields(sc.Text()) {
			if k, v, ok := strings.Cut(f, "="); ok {
				c.vals[k] = v
			}
		}
	}
	if missing() {
		cancel()
		t.Fatalf("%v printed %q, lacking one of %v (%v)", args, lines, want, <-c.done)
	}
	go func() { io.Copy(&c.rest, pr); close(c.copied) }()
	return c
}

// stop ends the command and returns what it printed after the lines
// startCommand read.
func (c *bgCommand) stop(t *testing.T) string {
	t.Helper()
	c.cancel()
	if err := <-c.done; err != nil {
		t.Errorf("command: %v", err)
	}
	<-c.copied
	return c.rest.String()
}

// playResult is one `rewind play` run.
type playResult struct {
	code           int
	stdout, stderr string
}

// runPlayers runs each argument list as `rewind play ...` at once and
// returns their results in order.
func runPlayers(argss ...[]string) []playResult {
	res := make([]playResult, len(argss))
	var wg sync.WaitGroup
	for i, args := range argss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, o, e := runCmd(append([]string{"play"}, args...)...)
			res[i] = playResult{code, o, e}
		}()
	}
	wg.Wait()
	return res
}

// checkSameHash checks that every player exited 0 with a last line
// verified_tick=tick and that all printed the same verified_hash.
func checkSameHash(t *testing.T, res []playResult, tick string) {
	t.Helper()
	var hash string
	for i, r := range res {
		last := lastLine(r.stdout)
		m := kv(last)
		if r.code != 0 || m["verified_tick"] != tick || m["verified_hash"] == "" || m["rollbacks"] == "" || m["resyncs"] == "" || m["ping_ms"] == "" {
			t.Errorf("player %d: exit %d, last line %q\nstderr: %s", i, r.code, last, r.stderr)
			continue
		}
		if hash == "" {
			hash = m["verified_hash"]
		} else if m["verified_hash"] != hash {
			t.Errorf("player %d: verified_hash %s, another player %s", i, m["verified_hash"], hash)
		}
	}
}

// TestDemoCommand: `rewind demo` prints room=, relay= and url=, serves a
// page naming the room, and two `rewind play --join` bots end with the
// same hash at the same tick.
func TestDemoCommand(t *testing.T) {
	testutil.SkipSockets(t)
	checkLeaks(t)
	d := startCommand(t, demo, []string{"--http", "127.0.0.1:0", "--grid", "32", "--players", "2", "--no-page"}, "room", "relay", "url")
	code, relayURL, pageURL := d.vals["room"], d.vals["relay"], d.vals["url"]
	if len(code) != roomcode.DefaultLen || !strings.HasPrefix(relayURL, "ws://127.0.0.1:") || !strings.HasPrefix(pageURL, "http://127.0.0.1:") ||
		strings.TrimPrefix(relayURL, "ws") != strings.TrimPrefix(pageURL, "http")+"rooms" {
		t.Fatalf("demo printed room=%q relay=%q url=%q", code, relayURL, pageURL)
	}
	resp, err := http.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "rewind play --headless --join "+code+" --relay "+relayURL+" --grid 32") {
		t.Errorf("page at %s: %d\n%s", pageURL, resp.StatusCode, page)
	}
	args := []string{"--headless", "--join", code, "--relay", relayURL, "--grid", "32", "--until-tick", "120", "--status", "0"}
	lower := append([]string(nil), args...)
	lower[2] = strings.ToLower(code) // codes are case-insensitive
	checkSameHash(t, runPlayers(args, lower), "120")
	out := d.stop(t)
	if m := kv(lastLine(out)); m["joins"] != "2" || m["matches"] != "1" {
		t.Errorf("demo's last line %q", lastLine(out))
	}
}

// TestServeRelayAndUDP: `rewind relay`, then `rewind serve --relay URL
// --room CODE --udp ADDR`: two players join by the code and one connects
// over UDP, all into the same match at once, and all three print the same
// hash for the same tick. A wrong code and bad flag sets are refused.
func TestServeRelayAndUDP(t *testing.T) {
	testutil.SkipSockets(t)
	checkLeaks(t)
	r := startCommand(t, serveRelay, []string{"--http", "127.0.0.1:0"}, "url")
	relayURL := r.vals["url"]
	s := startCommand(t, serve, []string{"--game", "sand", "--relay", relayURL, "--room", "K3F9QX", "--udp", "127.0.0.1:0",
		"--grid", "32", "--players", "3", "--status", "0", "--http", "127.0.0.1:0"}, "room", "udp", "http")
	if s.vals["room"] != "K3F9QX" || !strings.HasPrefix(s.vals["udp"], "127.0.0.1:") {
		t.Fatalf("serve printed room=%q udp=%q", s.vals["room"], s.vals["udp"])
	}
	tail := []string{"--grid", "32", "--until-tick", "120", "--status", "0"}
	byCode := append([]string{"--headless", "--join", "K3F9QX", "--relay", relayURL}, tail...)
	byUDP := append([]string{"--headless", "--connect", s.vals["udp"]}, tail...)
	checkSameHash(t, runPlayers(byCode, byUDP, byCode), "120")
	resp, err := http.Get("http://" + s.vals["http"] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"\nrewind_joins_total 3\n", "\nrewind_matches_total 1\n", "\nrewind_webrtc_peers "} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	code, _, stderr := runCmd("play", "--headless", "--join", "ZZZZZZ", "--relay", relayURL, "--status", "0")
	if code != 1 || !strings.Contains(stderr, "no room ZZZZZZ") {
		t.Errorf("wrong code: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCmd("serve", "--relay", relayURL, "--room", "K3F9QX", "--status", "0")
	if code != 1 || !strings.Contains(stderr, "taken") {
		t.Errorf("a taken code: exit %d, %q", code, stderr)
	}
	out := s.stop(t)
	if m := kv(lastLine(out)); m["room"] != "K3F9QX" || m["joins"] != "3" || m["matches"] != "1" {
		t.Errorf("serve's last line %q", lastLine(out))
	}
	// Stopped without --host-migration, serve ended the room's match:
	// the relay says so to whoever comes with the code.
	code, _, stderr = runCmd("play", "--headless", "--join", "K3F9QX", "--relay", relayURL, "--status", "0")
	if code != 1 || !strings.Contains(stderr, "has ended") {
		t.Errorf("the code of a stopped serve: exit %d, %q", code, stderr)
	}
	r.stop(t)
}

// TestRoomFlagErrors: flag sets that cannot work exit with status 2 and
// one line saying why.
func TestRoomFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--room", "K3F9QX"}, "--room needs --relay"},
		{[]string{"play", "--headless", "--join", "K3F9QX", "--connect", "127.0.0.1:1"}, "exclude each other"},
		{[]string{"play", "--headless", "--join", "K3F9QX", "--relay", ""}, "--join needs --relay"},
		{[]string{"play", "--headless"}, "--join CODE"},
		{[]string{"demo", "--players", "0"}, "--players 0"},
		{[]string{"play", "--join", "K3F9QX"}, "go run ./window --join CODE"},
	} {
		code, _, stderr := runCmd(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q (want 2 and %q)", tc.args, code, stderr, tc.want)
		}
	}
}
