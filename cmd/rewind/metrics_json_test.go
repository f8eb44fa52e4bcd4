package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestServeJSONMetrics: `rewind serve --json … --http …`, with and without
// --udp, starts and serves /metrics (it panicked at start-up: the host's
// Conn is the gateway's, or a transport.Multi, not a UDP server; issue 30
// item 8). Without --udp no udp_sessions gauge is exported.
func TestServeJSONMetrics(t *testing.T) {
	testutil.SkipSockets(t)
	for _, tc := range []struct {
		args    []string
		udpGaug bool
	}{
		{[]string{"--game", "walkers", "--json", "127.0.0.1:0", "--http", "127.0.0.1:0", "--status", "0"}, false},
		{[]string{"--game", "sand", "--grid", "32", "--json", "127.0.0.1:0", "--udp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--status", "0"}, true},
	} {
		t.Run(tc.args[1], func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			pr, pw := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- serve(ctx, tc.args, pw, io.Discard)
				pw.Close()
			}()
			var httpAddr string
			var lines []string
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				if v, ok := strings.CutPrefix(sc.Text(), "http="); ok {
					httpAddr = v
					break
				}
				lines = append(lines, sc.Text())
			}
			go io.Copy(io.Discard, pr)
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("serve: %v", err)
				}
			}()
			if httpAddr == "" {
				cancel()
				t.Fatalf("serve printed no http= line: %q (%v)", lines, <-done)
			}
			resp, err := http.Get("http://" + httpAddr + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			m := string(body)
			if !strings.Contains(m, "rewind_tick ") || !strings.Contains(m, "rewind_udp_datagrams_in_total ") {
				t.Fatalf("/metrics lacks rewind_tick or the udp counters:\n%.2000s", m)
			}
			if got := strings.Contains(m, "rewind_udp_sessions "); got != tc.udpGaug {
				t.Errorf("rewind_udp_sessions exported: %v, want %v", got, tc.udpGaug)
			}
		})
	}
}
