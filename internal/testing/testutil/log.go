package testutil

import (
	"bytes"
	"log/slog"
	"os"
	"sync"
	"testing"
)

// DebugLog returns a logger that records everything at debug level and
// more, with the time to the millisecond, and writes the record into t's
// output when t has failed (or at once, to stderr, with -v and
// REWIND_TEST_LOG=1). Goroutines may keep logging after the test: their
// lines go to the record, never to t.
func DebugLog(t testing.TB) *slog.Logger {
	t.Helper()
	b := &LockedBuffer{}
	var w interface{ Write([]byte) (int, error) } = b
	if testing.Verbose() && os.Getenv("REWIND_TEST_LOG") != "" {
		w = os.Stderr
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("debug log:\n%s", b.String())
		}
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.String(slog.TimeKey, a.Value.Time().Format("15:04:05.000"))
			}
			return a
		}}))
}

// LockedBuffer is a bytes.Buffer safe for concurrent use: a log's
// writer that a test reads while goroutines log.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
