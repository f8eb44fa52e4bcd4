package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestDemoBuildProgressEveryTen: while the page builds, its last step is
// printed every 10 s (made-up time), and nothing after stop.
func TestDemoBuildProgressEveryTen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		var shown []string
		progress, stop := everyTen(&out, func(s string) { shown = append(shown, s) })
		time.Sleep(5 * time.Second)
		progress("worker.wasm: 12 packages compiled (of 305 linked), 5 s")
		time.Sleep(6 * time.Second) // 11 s
		progress("page.wasm: 80 packages compiled (of 305 linked), 11 s")
		time.Sleep(10 * time.Second) // 21 s
		stop()
		time.Sleep(30 * time.Second)
		want := "rewind demo: building the page: worker.wasm: 12 packages compiled (of 305 linked), 5 s\n" +
			"rewind demo: building the page: page.wasm: 80 packages compiled (of 305 linked), 11 s\n"
		if out.String() != want || len(shown) != 2 {
			t.Errorf("printed %q, shown %q", out.String(), shown)
		}
		if strings.Count(out.String(), "\n") != 2 {
			t.Errorf("lines after stop: %q", out.String())
		}
	})
}
