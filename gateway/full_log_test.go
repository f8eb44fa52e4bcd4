package gateway_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestFullLogSampled: 30 sockets refused full within a second log one
// line, not one each (issue 30 item 7: 3,000 sockets, 2,986 lines); the
// Full counter counts every one.
func TestFullLogSampled(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	var out testutil.LockedBuffer
	m := newMatch(t, 1, gateway.Config[walkers.Input]{Log: slog.New(slog.NewTextHandler(&out, nil)), ResumeWait: 10 * time.Millisecond})
	ctx := timeout(t, 20*time.Second)
	a := newJSONClient(t, dial(ctx, t, m.url))
	if _, err := a.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	const n = 30
	start := time.Now()
	for range n {
		b := newJSONClient(t, dial(ctx, t, m.url))
		if code := b.expectError(ctx); code != gateway.CodeFull {
			t.Fatalf("refused: %s, want full", code)
		}
		b.ws.CloseNow()
	}
	took := time.Since(start)
	if s := m.gw.Stats(); s.Full != n {
		t.Fatalf("Full = %d, want %d", s.Full, n)
	}
	lines := strings.Count(out.String(), "json player refused")
	t.Logf("%d refusals in %v: %d lines", n, took, lines)
	if want := int(took/time.Second) + 1; lines < 1 || lines > want {
		t.Errorf("%d log lines for %d refusals in %v, want 1 to %d:\n%s", lines, n, took, want, out.String())
	}
	if strings.Contains(out.String(), "json player ended") {
		t.Errorf("a refusal logged unsampled:\n%s", out.String())
	}
}
