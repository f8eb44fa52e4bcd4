package roomclient

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestBackoff: the pauses double from First to Max (100 ms to 1 s by
// default), and Wait returns false at once when ctx ends, in made-up
// time.
func TestBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			b    Backoff
			want []time.Duration
		}{
			{Backoff{}, []time.Duration{100, 200, 400, 800, 1000, 1000}},
			{Backoff{First: 300 * time.Millisecond, Max: 2 * time.Second}, []time.Duration{300, 600, 1200, 2000, 2000}},
		} {
			for i, w := range c.want {
				start := time.Now()
				if !c.b.Wait(context.Background()) {
					t.Fatalf("%+v: Wait %d false", c.b, i)
				}
				if got := time.Since(start); got != w*time.Millisecond {
					t.Errorf("%+v: pause %d %v, want %v", c.b, i, got, w*time.Millisecond)
				}
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		var b Backoff
		go func() {
			time.Sleep(30 * time.Millisecond)
			cancel()
		}()
		start := time.Now()
		if b.Wait(ctx) || time.Since(start) != 30*time.Millisecond {
			t.Errorf("Wait with ctx ended at 30 ms: true or after %v", time.Since(start))
		}
	})
}
