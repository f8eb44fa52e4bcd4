package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// startServe runs `rewind serve` in-process with args until the returned
// stop is called, and returns the udp= and http= addresses it printed.
func startServe(t *testing.T, args ...string) (udp, httpAddr string, stop func() string) {
	t.Helper()
	testutil.SkipSockets(t)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, args, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var rest []string
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "udp="); ok {
			udp = v
			if !strings.Contains(strings.Join(args, " "), "--http") {
				break
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "http="); ok {
			httpAddr = v
			break
		}
		rest = append(rest, line)
	}
	if udp == "" {
		cancel()
		t.Fatalf("serve printed no udp= line: %q (%v)", rest, <-done)
	}
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&out, pr); close(copied) }()
	return udp, httpAddr, func() string {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		<-copied
		return out.String()
	}
}

// runCmd runs the rewind command line args in-process and returns its
// exit status and outputs.
func runCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func kv(line string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

// TestServeAndPlayCommands runs `rewind serve` and two `rewind play
// --headless --until-tick` in-process over UDP: both players end with the
// key=value line, the same verified tick and the same hash; the metrics
// endpoint counts them.
func TestServeAndPlayCommands(t *testing.T) {
	checkLeaks(t)
	udp, httpAddr, stop := startServe(t, "--game", "sand", "--udp", "127.0.0.1:0", "--grid", "32",
		"--players", "2", "--http", "127.0.0.1:0", "--log-format", "json")
	if _, _, err := net.SplitHostPort(udp); err != nil || !strings.HasPrefix(udp, "127.0.0.1:") {
		t.Fatalf("udp=%q", udp)
	}
	var wg sync.WaitGroup
	type result struct {
		code           int
		stdout, stderr string
	}
	res := make([]result, 2)
	for i := range res {
		wg.Go(func() {
			c, o, e := runCmd("play", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "120", "--seed", "7")
			res[i] = result{c, o, e}
		})
	}
	wg.Wait()
	hexHash := regexp.MustCompile(`^[0-9a-f]{16}$`)
	var hashes []string
	for i, r := range res {
		if r.code != 0 {
			t.Fatalf("player %d: exit %d\n%s", i, r.code, r.stderr)
		}
		m := kv(lastLine(r.stdout))
		if m["verified_tick"] != "120" || !hexHash.MatchString(m["verified_hash"]) {
			t.Fatalf("player %d: last line %q", i, lastLine(r.stdout))
		}
		for _, k := range []string{"rollbacks", "resyncs", "ping_ms", "desyncs"} {
			if _, ok := m[k]; !ok {
				t.Errorf("player %d: no %s in %q", i, k, lastLine(r.stdout))
			}
		}
		if m["desyncs"] != "0" {
			t.Errorf("player %d: desyncs=%s", i, m["desyncs"])
		}
		if !strings.Contains(r.stderr, "msg=status") || !strings.Contains(r.stderr, "rollbacks=") {
			t.Errorf("player %d: no status line on stderr:\n%s", i, r.stderr)
		}
		hashes = append(hashes, m["verified_hash"])
	}
	if hashes[0] != hashes[1] {
		t.Errorf("players disagree at tick 120: %s vs %s", hashes[0], hashes[1])
	}
	resp, err := http.Get("http://" + httpAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"rewind_joins_total 2", "rewind_matches_total 1", "rewind_players ", "rewind_ticks_total ", "rewind_refusals_total 0", "rewind_bytes_out_total "} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	resp, err = http.Get("http://" + httpAddr + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/debug/pprof/: %s", resp.Status)
	}
	http.DefaultClient.CloseIdleConnections()
	out := stop()
	if m := kv(lastLine(out)); m["joins"] != "2" || m["matches"] != "1" {
		t.Errorf("serve's last line %q", lastLine(out))
	}
}

// TestPlayErrors: bad flags, nobody at the address, an incompatible game
// and a full match each end with one line on stderr and a non-zero exit.
func TestPlayErrors(t *testing.T) {
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "32", "--max-players", "1")
	defer stop()
	// Hold the only slot.
	holder := make(chan struct{})
	held := make(chan struct{})
	go func() {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-holder; cancel() }()
		var o bytes.Buffer
		pr, pw := io.Pipe()
		go func() {
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				if strings.Contains(sc.Text(), "msg=welcomed") {
					close(held)
				}
			}
		}()
		play(ctx, []string{"--headless", "--connect", udp, "--grid", "32"}, &o, pw)
		pw.Close()
	}()
	<-held
	defer close(holder)

	// A closed port: bind one, note it, close it.
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := pc.LocalAddr().String()
	pc.Close()

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"play", "--headless"}, 2, "--connect HOST:PORT is required"},
		{[]string{"play", "--headless", "--connect", udp, "--until-tick", "x"}, 2, "invalid value"},
		{[]string{"play", "--connect", udp}, 2, "--headless"},
		{[]string{"play", "--headless", "--connect", udp, "--input", "joystick"}, 2, "--input"},
		{[]string{"serve", "--game", "chess"}, 2, "the registered games: cards, paint, sand, ships, "},
		{[]string{"serve", "--udp", "256.0.0.1:1"}, 1, "listen"},
		{[]string{"play", "--headless", "--connect", dead, "--timeout", "300ms"}, 1, "no server answered at " + dead},
		{[]string{"play", "--headless", "--connect", "127.0.0.1", "--timeout", "300ms"}, 1, "cannot connect to 127.0.0.1: "},
		{[]string{"play", "--headless", "--connect", udp, "--grid", "64", "--timeout", "10s"}, 1, "refused by the server at " + udp + ": incompatible game"},
		{[]string{"play", "--headless", "--connect", udp, "--game", "ships", "--timeout", "10s"}, 1, "incompatible game: the match plays sand"},
		{[]string{"play", "--headless", "--connect", udp, "--grid", "32", "--timeout", "10s"}, 1, "refused by the server at " + udp + ": match full"},
	} {
		code, _, stderr := runCmd(c.args...)
		last := lastLine(stderr)
		if code != c.code || !strings.Contains(last, c.want) {
			t.Errorf("%q: exit %d, last stderr line %q; want exit %d and %q", c.args, code, last, c.code, c.want)
		}
		if c.code == 2 && strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
			t.Errorf("%q: a usage error of more than one line:\n%s", c.args, stderr)
		}
		if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
			t.Errorf("%q: a stack trace:\n%s", c.args, stderr)
		}
	}
}

// TestServeBadHTTPPrintsNoAddress: an --http address that cannot be bound
// fails before serve prints udp= or room=, so a script reading standard
// output never sees the address of a server that then exits 1.
func TestServeBadHTTPPrintsNoAddress(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--udp", "127.0.0.1:0", "--grid", "32", "--http", "bad:addr"},
		{"serve", "--relay", "ws://127.0.0.1:1/rooms", "--grid", "32", "--http", "bad:addr"},
	} {
		code, stdout, stderr := runCmd(args...)
		if code != 1 || stdout != "" || !strings.Contains(lastLine(stderr), "--http bad:addr") {
			t.Errorf("%q: exit %d, stdout %q, last stderr line %q; want exit 1, no output, an --http error", args, code, stdout, lastLine(stderr))
		}
	}
}
