package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/cli/console"
	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestConsoleURLPrinted: demo, relay and serve with --console print
// console=http://HOST:PORT/console on standard output, and the page is
// there.
func TestConsoleURLPrinted(t *testing.T) {
	testutil.SkipSockets(t)
	cmds := []struct {
		name string
		run  func(*testing.T) *bgCommand
	}{
		{"demo", func(t *testing.T) *bgCommand {
			return startCommand(t, demo, []string{"--http", "127.0.0.1:0", "--grid", "32", "--no-page", "--turn", "none", "--console"}, "url", "console")
		}},
		{"relay", func(t *testing.T) *bgCommand {
			return startCommand(t, serveRelay, []string{"--http", "127.0.0.1:0", "--turn", "none", "--console"}, "url", "console")
		}},
		{"serve", func(t *testing.T) *bgCommand {
			return startCommand(t, serve, []string{"--grid", "32", "--udp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--status", "0", "--console"}, "http", "console")
		}},
	}
	for _, c := range cmds {
		t.Run(c.name, func(t *testing.T) {
			cmd := c.run(t)
			defer cmd.stop(t)
			u := cmd.vals["console"]
			if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.HasSuffix(u, console.Path) {
				t.Fatalf("console=%q", u)
			}
			resp, err := http.Get(u)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s: %d", u, resp.StatusCode)
			}
		})
	}
}
