package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// TestRelayCommand runs `rewind relay --http 127.0.0.1:0`, reads the URL
// from its listening line, and connects a host and a player through it.
func TestRelayCommand(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
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
	if !strings.Contains(line, "listening") {
		t.Fatalf("first line %q lacks listening", line)
	}
	var url string
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "url="); ok {
			url = v
		}
	}
	if !strings.HasPrefix(url, "ws://127.0.0.1:") {
		t.Fatalf("url %q in %q", url, line)
	}
	host, err := relay.HostRoom(ctx, relay.HostOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	p, err := relay.JoinRoom(ctx, relay.JoinOptions{URL: url, Code: host.Code(), WebRTC: webrtc.Config{RelayOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if l, r := p.Conn().PathTypes(); l != "relay" {
		t.Fatalf("relay-only path through the command's TURN is %s-%s", l, r)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
