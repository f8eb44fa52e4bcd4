package rewind_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewindnet/rewind"
)

// updateLog is an Updater that records the times of its Updates;
// deadlineLog adds a NextDeadline.
type updateLog struct {
	mu       sync.Mutex
	times    []time.Time
	deadline func(now time.Time) time.Time
}

func (u *updateLog) Update(now time.Time) error {
	u.mu.Lock()
	u.times = append(u.times, now)
	u.mu.Unlock()
	return nil
}

func (u *updateLog) updates() []time.Time {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]time.Time(nil), u.times...)
}

type deadlineLog struct{ *updateLog }

func (u deadlineLog) NextDeadline() time.Time {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.deadline(u.times[len(u.times)-1])
}

// TestDriveWakesOnAnyReady: Drive updates when any of its ready channels
// signals, the last of six as well as the first (there used to be a "first
// two only" rule), through the plain select and through reflect.Select.
func TestDriveWakesOnAnyReady(t *testing.T) {
	for _, n := range []int{1, 2, 4, 5, 6} {
		t.Run(fmt.Sprintf("%d channels", n), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ready := make([]chan struct{}, n)
				in := make([]<-chan struct{}, n)
				for i := range ready {
					ready[i] = make(chan struct{}, 1)
					in[i] = ready[i]
				}
				u := &updateLog{}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- rewind.Drive(ctx, u, time.Hour, nil, in...) }()
				synctest.Wait()
				for k, i := range []int{n - 1, 0, n / 2} {
					ready[i] <- struct{}{}
					synctest.Wait()
					if got := len(u.updates()); got != k+2 {
						t.Fatalf("after ready channel %d of %d signaled: %d updates, want %d", i, n, got, k+2)
					}
				}
				cancel()
				if err := <-done; !errors.Is(err, context.Canceled) {
					t.Fatalf("Drive: %v, want context.Canceled", err)
				}
			})
		})
	}
}

// TestDriveWakesAtDeadline: an Updater with a NextDeadline is updated
// when its deadline is due, not a period later; a deadline further than the period waits the
// period; a zero deadline waits the period.
func TestDriveWakesAtDeadline(t *testing.T) {
	for _, c := range []struct {
		name     string
		period   time.Duration
		deadline time.Duration // after the last update; 0: the zero time
		want     time.Duration // between updates
	}{
		{"due before the period", time.Hour, 10 * time.Millisecond, 10 * time.Millisecond},
		{"due after the period", 5 * time.Millisecond, time.Hour, 5 * time.Millisecond},
		{"no deadline", 7 * time.Millisecond, 0, 7 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				u := &updateLog{deadline: func(last time.Time) time.Time {
					if c.deadline == 0 {
						return time.Time{}
					}
					return last.Add(c.deadline)
				}}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- rewind.Drive(ctx, deadlineLog{u}, c.period, nil) }()
				time.Sleep(3*c.want + c.want/2)
				synctest.Wait()
				cancel()
				<-done
				times := u.updates()
				if len(times) != 4 {
					t.Fatalf("%d updates in 3.5 waits, want 4: %v", len(times), times)
				}
				for i := 1; i < len(times); i++ {
					if d := times[i].Sub(times[i-1]); d != c.want {
						t.Errorf("update %d came %v after the one before, want %v", i, d, c.want)
					}
				}
			})
		})
	}
}
