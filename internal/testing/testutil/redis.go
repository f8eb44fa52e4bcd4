package testutil

import (
	"errors"
	"os"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/redisproc"
)

// StartRedis starts a redis-server (Debian's redis-server package; .ci/run
// installs it) on a free port of 127.0.0.1 with its files in a temporary
// directory, without persistence (internal/testing/redisproc), and returns its URL
// ("redis://127.0.0.1:PORT/0"). The server is killed at the end of the
// test. Without redis-server on the PATH the test is skipped, saying so,
// except under CI (CI=true), where it fails: .ci/run installs it.
func StartRedis(t testing.TB) string {
	t.Helper()
	return StartRedisServer(t).URL
}

// StartRedisServer is StartRedis returning the server, which the test may
// kill (Close) and start again empty (Restart).
func StartRedisServer(t testing.TB) *redisproc.Server {
	t.Helper()
	SkipSockets(t)
	s, err := redisproc.Start(t.TempDir())
	if errors.Is(err, redisproc.ErrNotInstalled) {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
