package roomclient

import (
	"cmp"
	"context"
	"time"
)

// Backoff is the pause between the tries of a step that failed and may
// work a little later (a claim while the relay probes the old host, a
// join of a room no one hosts yet): First (100 ms if zero), doubling
// after each pause up to Max (a second if zero). The zero value is ready
// to use; JoinAgain, rooms' claims and the browser page's claims wait
// with it.
type Backoff struct {
	// First is the first pause (default 100 ms).
	First time.Duration
	// Max caps the pause (default 1 s).
	Max time.Duration

	next time.Duration
}

// Wait pauses for the next pause, or until ctx ends: false then, at
// once.
func (b *Backoff) Wait(ctx context.Context) bool {
	if b.next == 0 {
		b.next = cmp.Or(b.First, 100*time.Millisecond)
	}
	t := time.NewTimer(b.next)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	}
	b.next = min(2*b.next, cmp.Or(b.Max, time.Second))
	return true
}
