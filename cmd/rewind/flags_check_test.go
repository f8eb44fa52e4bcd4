package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"testing"
)

// TestFlagChecks: flag values that used to be taken silently (issue 15,
// point 6) are refused with one line, and a relay that never answers is
// given up on after --relay-timeout.
func TestFlagChecks(t *testing.T) {
	// A TCP port that accepts (the kernel's backlog) and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve", "--udp", ""}, 2, `--udp ""`},
		{[]string{"serve", "--relay", "ws://127.0.0.1:1/rooms", "--relay-timeout", "0s"}, 2, "--relay-timeout"},
		{[]string{"serve", "--relay", " , "}, 2, `--relay " , ": no URL`},
		{[]string{"serve", "--relay", "ws://127.0.0.1:1/rooms,ws://127.0.0.1:2/rooms", "--relay-reconnect", "-1s"}, 2, "--relay-reconnect must not be negative"},
		{[]string{"serve", "--relay", "ws://127.0.0.1:1/rooms,ws://127.0.0.1:2/rooms", "--rooms", "2", "--host-migration"}, 2, "their matches do not migrate"},
		{[]string{"relay", "--http", "127.0.0.1:0", "--turn-ip", "not.an.ip"}, 2, `--turn-ip "not.an.ip" is not an IP address`},
		{[]string{"relay", "--http", "127.0.0.1:0", "--turn-ttl", "30s"}, 2, "--turn-ttl 30s: want 1m or more"},
		{[]string{"relay", "--http", "127.0.0.1:0", "--host-timeout", "-1s"}, 2, "--host-timeout -1s must not be negative"},
		{[]string{"demo", "--http", "127.0.0.1:0", "--no-page", "--host-timeout", "-1s"}, 2, "--host-timeout -1s must not be negative"},
		{[]string{"webdoom", "--port", "0", "--max-history", "-1"}, 2, "--max-history -1"},
		{[]string{"webdoom", "--port", "0", "--lobby-idle", "-1s"}, 2, "--lobby-idle -1s"},
		{[]string{"serve", "--max-players-per-ip", "-1"}, 2, "--max-players-per-ip -1"},
		{[]string{"serve", "--relay", "ws://" + silent.Addr().String() + "/rooms", "--relay-timeout", "300ms"}, 1, "did not host the room within 300ms (--relay-timeout)"},
	} {
		code, _, stderr := runCmd(c.args...)
		last := lastLine(stderr)
		if code != c.code || !strings.Contains(last, c.want) {
			t.Errorf("%q: exit %d, last stderr line %q; want exit %d and %q", c.args, code, last, c.code, c.want)
		}
		if c.code == 2 && strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
			t.Errorf("%q: a usage error of more than one line:\n%s", c.args, stderr)
		}
	}
}

// TestServeMaxPlayersPerIP: with --max-players-per-ip 1, a second player
// from 127.0.0.1 is refused "match full" while the first plays.
func TestServeMaxPlayersPerIP(t *testing.T) {
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "32", "--max-players-per-ip", "1")
	defer stop()
	// The first player, until it is welcomed and then until told to go.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	welcomed := make(chan struct{})
	done := make(chan error, 1)
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(pr)
		once := false
		for sc.Scan() {
			if !once && strings.Contains(sc.Text(), "msg=welcomed") {
				once = true
				close(welcomed)
			}
		}
	}()
	go func() {
		var o bytes.Buffer
		done <- play(ctx, []string{"--headless", "--connect", udp, "--grid", "32"}, &o, pw)
		pw.Close()
	}()
	select {
	case <-welcomed:
	case err := <-done:
		t.Fatalf("first player: %v", err)
	}
	code, _, stderr := runCmd("play", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "30", "--timeout", "10s")
	if last := lastLine(stderr); code != 1 || !strings.Contains(last, "match full") {
		t.Fatalf("a second player from the same address: exit %d, %q", code, last)
	}
	cancel()
	<-done
}
