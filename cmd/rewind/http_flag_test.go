package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/cli/cliflag"
)

// TestHTTPFlagOneMeaning: every command with --http (serve, relay, demo,
// play) describes it the same way in its --help, as the process's HTTP
// listener (cliflag.HTTPMeaning), then what it mounts there; and the
// check finds a description that says otherwise.
func TestHTTPFlagOneMeaning(t *testing.T) {
	for _, name := range []string{"serve", "relay", "demo", "play"} {
		var help bytes.Buffer
		if err := commands[name].Run([]string{"--help"}, io.Discard, &help); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("rewind %s --help: %v", name, err)
		}
		if d, ok := httpUsage(help.String()); !ok || !strings.HasPrefix(d, cliflag.HTTPMeaning) {
			t.Errorf("rewind %s --help describes --http as %q (found %v), want it to begin %q", name, d, ok, cliflag.HTTPMeaning)
		}
	}
	if d, ok := httpUsage("flags:\n  -http string\n    \tHTTP address of the relay's WebSocket endpoint\n"); !ok || strings.HasPrefix(d, cliflag.HTTPMeaning) {
		t.Errorf("httpUsage of an old description: %q, %v", d, ok)
	}
}

// httpUsage returns the description of -http in a flag set's
// PrintDefaults output.
func httpUsage(help string) (string, bool) {
	_, rest, ok := strings.Cut(help, "\n  -http string\n")
	if !ok {
		return "", false
	}
	line, _, _ := strings.Cut(rest, "\n")
	return strings.TrimLeft(line, " \t"), true
}
