package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// startServeKey runs serve with args and returns the udp= and server_key=
// lines it printed (on lines of their own) and a stop function.
func startServeKey(t *testing.T, args ...string) (udp, key string, stop func()) {
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
	for (udp == "" || key == "") && sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "udp="); ok {
			udp = v
		}
		if v, ok := strings.CutPrefix(line, "server_key="); ok {
			key = v
		}
	}
	go io.Copy(io.Discard, pr)
	return udp, key, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
}

// TestServeKeyFileAndPlayPins: serve --key-file creates the key and keeps
// it across runs; play --server-key takes the right key and refuses
// another; play --known-servers keeps a new server's key, and later
// refuses a server at that address that proves another.
func TestServeKeyFileAndPlayPins(t *testing.T) {
	checkLeaks(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "server.key")
	known := filepath.Join(dir, "known")
	args := []string{"--game", "sand", "--udp", "127.0.0.1:0", "--grid", "32", "--key-file", keyFile}
	udp, key, stop := startServeKey(t, args...)
	if udp == "" || len(key) != 64 || strings.Contains(udp, key) {
		t.Fatalf("udp=%q server_key=%q", udp, key)
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	play := func(extra ...string) (int, string, string) {
		return runCmd(append([]string{"play", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "30", "--timeout", "3s"}, extra...)...)
	}
	if code, out, errOut := play("--server-key", key); code != 0 || kv(lastLine(out))["verified_tick"] != "30" ||
		!strings.Contains(errOut, "server_key="+key) || !strings.Contains(errOut, "pinned=true") {
		t.Fatalf("pinned play: exit %d %q\n%s", code, lastLine(out), errOut)
	}
	wrong := strings.Repeat("ab", 32)
	if code, _, errOut := play("--server-key", wrong); code != 1 || !strings.Contains(errOut, "is not the one pinned") {
		t.Fatalf("wrong pin: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := play("--server-key", "nothex"); code != 2 || !strings.Contains(errOut, "--server-key") {
		t.Fatalf("bad --server-key: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := play("--known-servers", known); code != 0 || !strings.Contains(errOut, "server key kept") {
		t.Fatalf("first use: exit %d\n%s", code, errOut)
	}
	if b, err := os.ReadFile(known); err != nil || string(b) != udp+" "+key+"\n" {
		t.Fatalf("known servers %q %v", b, err)
	}
	stop()

	// The same key file: the same key.
	_, key2, stop2 := startServeKey(t, args...)
	if key2 != key {
		t.Fatalf("key %s after a restart, was %s", key2, key)
	}
	stop2()
	// Another server (another key) at an address the file knows: refused.
	udp3, key3, stop3 := startServeKey(t, "--game", "sand", "--udp", "127.0.0.1:0", "--grid", "32")
	defer stop3()
	if key3 == key {
		t.Fatal("a server without --key-file has the file's key")
	}
	if err := os.WriteFile(known, []byte("# kept by play\n"+udp3+" "+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	udp = udp3
	if code, _, errOut := play("--known-servers", known); code != 1 || !strings.Contains(errOut, "is not the one pinned") {
		t.Fatalf("changed key: exit %d\n%s", code, errOut)
	}
}
