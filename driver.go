package rewind

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/transport"
)

// Updater is a state machine driven by the time: a server, a client or a
// Session.
type Updater interface {
	Update(now time.Time) error
}

// driveStatic is how many ready channels Drive waits on with a plain
// select; more go through reflect.Select (which allocates).
const driveStatic = 4

// Drive runs u in real time until ctx is done or Update fails: it calls
// Update(clock.Now()) whenever any of the ready channels signals a
// datagram, when u's next deadline is due if u has one (a method
// NextDeadline() time.Time returning when Update next has work due
// whatever the network does, or the zero time when only a datagram can
// give it some: a Host's next tick), and at least every period (for a
// session, a quarter of a tick is a good period: it is the timing
// precision of the ticks). It is the real-time loop of every transport;
// in made-up time, call Update directly instead. A nil clock is the wall
// clock (any transport.Clock will do). Drive starts no goroutine; it
// returns ctx's error, or Update's.
func Drive(ctx context.Context, u Updater, period time.Duration, clock interface{ Now() time.Time }, ready ...<-chan struct{}) error {
	var next func() time.Time
	if dl, ok := u.(interface{ NextDeadline() time.Time }); ok {
		next = dl.NextDeadline
	}
	return drive(ctx, u.Update, next, func() time.Duration { return period }, clock, ready)
}

// drive is Drive of an update function, with next (nil: none) for the
// next deadline and period for the longest wait, asked after every
// update.
func drive(ctx context.Context, update func(time.Time) error, next func() time.Time, period func() time.Duration, clock interface{ Now() time.Time }, ready []<-chan struct{}) error {
	if clock == nil {
		clock = transport.WallClock{}
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var r [driveStatic]<-chan struct{} // nil channels never fire
	var cases []reflect.SelectCase     // with more than driveStatic
	if len(ready) <= driveStatic {
		copy(r[:], ready)
	} else {
		cases = []reflect.SelectCase{
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer.C)},
		}
		for _, c := range ready {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)})
		}
	}
	for {
		now := clock.Now()
		if err := update(now); err != nil {
			return err
		}
		wait := period()
		if wait <= 0 {
			wait = 4 * time.Millisecond
		}
		if next != nil {
			if at := next(); !at.IsZero() {
				wait = min(max(at.Sub(now), 0), wait)
			}
		}
		timer.Reset(wait)
		if cases != nil {
			if i, _, _ := reflect.Select(cases); i == 0 {
				return ctx.Err()
			}
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		case <-r[0]:
		case <-r[1]:
		case <-r[2]:
		case <-r[3]:
		}
	}
}

// Run drives the session in real time until ctx is done, the session is
// closed, or it fails (the client refused, timed out or dropped). It
// returns nil when ctx ends or the session is closed.
func (s *Session[I]) Run(ctx context.Context) error {
	ready := make([]<-chan struct{}, 0, len(s.conns))
	for _, c := range s.conns {
		ready = append(ready, c.Ready())
	}
	// A quarter of the match's tick: with ClientConfig.HostSettings the
	// tick rate may change with the welcome (the host's settings).
	period := func() time.Duration {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.period / 4
	}
	err := drive(ctx, s.Update, nil, period, nil, ready)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, client.ErrClosed) {
		return nil
	}
	return err
}
