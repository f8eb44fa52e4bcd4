package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestRelayErrorsSayWhatToDo: a relay URL where nothing listens and a
// relay's URL without its /rooms path each end play --join, serve --relay
// and open with one line that says what to do (start a relay; the URL
// meant), not a chain of dial errors.
func TestRelayErrorsSayWhatToDo(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: opens a relay on 127.0.0.1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serveRelay(ctx, []string{"--http", "127.0.0.1:0"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url := kv(line)["url"]
	bare := strings.TrimSuffix(url, "/rooms")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "ws://" + l.Addr().String() + "/rooms"
	l.Close()
	noRelay := "no relay at " + dead + ": start one with `rewind relay` or `rewind demo`"
	meant := bare + " answered HTTP 404, not a rooms relay: did you mean " + url + "?"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--headless", "--join", "ABCDEF", "--relay", dead}, noRelay},
		{[]string{"play", "--headless", "--join", "ABCDEF", "--relay", bare}, meant},
		{[]string{"serve", "--grid", "32", "--relay", dead, "--status", "0"}, noRelay},
		{[]string{"serve", "--grid", "32", "--relay", bare + "/", "--status", "0"}, strings.Replace(meant, bare, bare+"/", 1)},
		{[]string{"open", "--relay", bare}, meant},
	} {
		code, _, stderr := runCmd(c.args...)
		last := lastLine(stderr)
		if code != 1 || !strings.Contains(last, c.want) || strings.Contains(last, "failed to WebSocket dial") {
			t.Errorf("%q: exit %d, last line %q; want exit 1 and %q", c.args, code, last, c.want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
