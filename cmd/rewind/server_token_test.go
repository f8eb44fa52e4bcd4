package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestServerTokenCommands: `rewind relay --server-token FILE` refuses
// `rewind serve --on-demand` without the file (exit status 2, a clear
// error) and takes it with the file: `rewind open` gets a room from it;
// a one-room `serve --relay URL --server-token FILE` registers as a match
// server of one room (room=), refused with another token; a relay
// without a token says so once at start.
func TestServerTokenCommands(t *testing.T) {
	testutil.SkipSockets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("fleet-secret-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, wait := startRelayCmd(ctx, t, "--http", "127.0.0.1:0", "--turn", "none", "--server-token", tok)
	defer func() { cancel(); wait() }()

	code, out, stderr := runCmd("serve", "--game", "sand", "--grid", "32", "--relay", url, "--on-demand", "--max-matches", "2", "--duration", "1s")
	if code != 2 || out != "" || !strings.Contains(stderr, "unauthorized") || !strings.Contains(stderr, "--server-token") {
		t.Fatalf("serve without the token: exit %d, %q %q; want 2 and unauthorized", code, out, stderr)
	}

	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serve(sctx, []string{"--game", "sand", "--grid", "32", "--relay", url, "--max-matches", "2", "--on-demand", "--server-token", tok, "--status", "0"}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() || sc.Text() != "slots=2" {
		scancel()
		t.Fatalf("serve's first line %q, want slots=2: %v", sc.Text(), <-served)
	}
	go io.Copy(io.Discard, pr)
	if code, out, stderr := runCmd("open", "--relay", url); code != 0 || !strings.HasPrefix(out, "room=") {
		t.Fatalf("open: exit %d, %q %q", code, out, stderr)
	}
	scancel()
	<-served

	// One room: with the token, a match server of one room; with
	// another token, refused.
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(bad, []byte("not-the-fleet-secret-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCmd("serve", "--game", "sand", "--grid", "32", "--relay", url, "--server-token", bad, "--duration", "1s")
	if code != 2 || out != "" || !strings.Contains(stderr, "unauthorized") {
		t.Fatalf("one-room serve with a wrong token: exit %d, %q %q; want 2 and unauthorized", code, out, stderr)
	}
	code, out, stderr = runCmd("serve", "--game", "sand", "--grid", "32", "--relay", url, "--server-token", tok, "--duration", "1s", "--status", "0")
	if code != 0 || !strings.HasPrefix(out, "room=") {
		t.Fatalf("one-room serve with the token: exit %d, %q %q; want room=", code, out, stderr)
	}
	if code, _, stderr := runCmd("serve", "--game", "sand", "--relay", url, "--server-token", tok, "--host-migration"); code != 2 || !strings.Contains(stderr, "--host-migration") {
		t.Fatalf("--server-token with --host-migration: exit %d, %q", code, stderr)
	}

	var e strings.Builder
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	pr2, pw2 := io.Pipe()
	go func() {
		done <- serveRelay(rctx, []string{"--http", "127.0.0.1:0", "--turn", "none"}, pw2, &e)
		pw2.Close()
	}()
	bufio.NewReader(pr2).ReadString('\n')
	go io.Copy(io.Discard, pr2)
	rcancel()
	<-done
	if n := strings.Count(e.String(), "any client may register as an on-demand match server"); n != 1 {
		t.Fatalf("a relay without a token said so %d times: %q", n, e.String())
	}
}
