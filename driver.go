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

// Deadliner is implemented by an Updater that knows when it next has work
// due whatever the network does (a host: its next tick). Drive wakes it
// then, rather than on a fixed short period.
type Deadliner interface {
	// NextDeadline returns when Update next has work due, or the zero
	// time when only a datagram can give it some.
	NextDeadline() time.Time
}

// driveStatic is how many ready channels Drive waits on with a plain
// select; more go through reflect.Select (which allocates).
const driveStatic = 4

// Drive runs u in real time until ctx is done or Update fails: it calls
// Update(clock.Now()) whenever any of the ready channels signals a
// datagram, when u's NextDeadline is due if u is a Deadliner, and at
// least every period (for a session, a quarter of a tick is a good
// period: it is the timing precision of the ticks). It is the real-time
// loop of every transport; in made-up time, call Update directly instead.
// A nil clock is the wall clock (any transport.Clock will do). Drive
// starts no goroutine; it returns ctx's error, or Update's.
func Drive(ctx context.Context, u Updater, period time.Duration, clock interface{ Now() time.Time }, ready ...<-chan struct{}) error {
	if clock == nil {
		clock = transport.WallClock{}
	}
	if period <= 0 {
		period = 4 * time.Millisecond
	}
	dl, _ := u.(Deadliner)
	timer := time.NewTimer(period)
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
		if err := u.Update(now); err != nil {
			return err
		}
		wait := period
		if dl != nil {
			if next := dl.NextDeadline(); !next.IsZero() {
				wait = min(max(next.Sub(now), 0), period)
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
	var u Updater = s
	if s.ccfg.HostSettings {
		// The tick rate may change with the welcome (the host's
		// settings): wake a quarter of the match's tick after each Update.
		u = &settlingDriver[I]{s: s}
	}
	err := Drive(ctx, u, s.period/4, nil, ready...)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, client.ErrClosed) {
		return nil
	}
	return err
}

// settlingDriver drives a session whose tick rate comes with the welcome
// (ClientConfig.HostSettings): it wakes a quarter of the session's tick
// period after each Update, so that Drive's period (a quarter of the
// given game's tick) bounds the wait without fixing it.
type settlingDriver[I any] struct {
	s    *Session[I]
	next time.Time
}

// Update updates the session and notes when to wake next.
func (d *settlingDriver[I]) Update(now time.Time) error {
	err := d.s.Update(now)
	d.s.mu.Lock()
	d.next = now.Add(d.s.period / 4)
	d.s.mu.Unlock()
	return err
}

// NextDeadline is a quarter of the session's tick after the last Update.
func (d *settlingDriver[I]) NextDeadline() time.Time { return d.next }
