package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// TestRelayCommand runs `rewind relay --http 127.0.0.1:0` (with --metrics
// and 8-character codes), reads the URL from its listening line, and
// connects a host and a player through it.
func TestRelayCommand(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serveRelay(ctx, []string{"--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--code-length", "8"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	if !strings.Contains(line, "listening") {
		t.Fatalf("first line %q lacks listening", line)
	}
	var url, metrics string
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "url="); ok {
			url = v
		}
		if v, ok := strings.CutPrefix(f, "metrics="); ok {
			metrics = v
		}
	}
	if !strings.HasPrefix(url, "ws://127.0.0.1:") {
		t.Fatalf("url %q in %q", url, line)
	}
	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if len(host.Code()) != 8 {
		t.Fatalf("--code-length 8: code %q", host.Code())
	}
	p, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: url, Code: host.Code(), WebRTC: webrtc.Config{RelayOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if l, r := p.Conn().PathTypes(); l != "relay" {
		t.Fatalf("relay-only path through the command's TURN is %s-%s", l, r)
	}
	// --metrics: the relay's counters, with the room and both connections.
	resp, err := http.Get("http://" + metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"rewind_relay_rooms 1", "rewind_relay_conns 2", "rewind_relay_joins_failed_total 0", "rewind_relay_joins_throttled_total 0", "rewind_relay_pending_joiners", "rewind_relay_pending_dropped_total", "rewind_relay_match_servers 0", "rewind_relay_opens_full_total 0", "rewind_relay_standins 0", "rewind_relay_dead_relay_drops_total 0"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
