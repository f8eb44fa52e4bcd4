package testutil

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// StartRedis starts a redis-server (Debian's redis-server package; .ci/run
// installs it) on a free port of 127.0.0.1 with its files in a temporary
// directory, without persistence, and returns its URL
// ("redis://127.0.0.1:PORT/0"). The server is killed at the end of the
// test. Without redis-server on the PATH the test is skipped, saying so,
// except under CI (CI=true), where it fails: .ci/run installs it.
func StartRedis(t testing.TB) string {
	t.Helper()
	SkipSockets(t)
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		const msg = "redis-server is not installed (apt-get install redis-server; .ci/run installs it)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", t.TempDir(),
		"--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loglevel", "warning")
	dieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not listen on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "redis://" + addr + "/0"
}
