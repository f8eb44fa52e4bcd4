// Package testutil holds small helpers shared by the tests of several
// packages: a goroutine leak check and polling until a condition holds.
//
// It uses only the standard library, so the internal tests of any package
// (relay, transport, ...) may import it without an import cycle. Only test
// code imports it.
package testutil

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// CheckGoroutines fails t if goroutines started during the test outlive
// it: at cleanup it polls every 20 ms for up to grace (pion and net/http
// wind down asynchronously) until the count is back to what it was when
// CheckGoroutines was called, and reports a dump of all stacks if it is not.
func CheckGoroutines(t testing.TB, grace time.Duration) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(grace)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutines leaked: %d before, %d after\n%s", before, runtime.NumGoroutine(), buf)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// WaitUntil polls cond every 10 ms until it holds, and fails t (Fatalf)
// if ctx ends first; what names the awaited condition in the message.
func WaitUntil(ctx context.Context, t testing.TB, what string, cond func() bool) {
	t.Helper()
	tk := time.NewTicker(10 * time.Millisecond)
	defer tk.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting for %s: %v", what, ctx.Err())
		case <-tk.C:
		}
	}
}

// SkipSockets skips t under go test -short: the test opens real sockets
// (on 127.0.0.1), which the quick local run leaves out. The README's test
// command and CI run them.
func SkipSockets(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("opens real sockets: skipped under -short")
	}
}
