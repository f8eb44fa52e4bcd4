package rewind

import (
	"context"
	"errors"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/transport"
)

// Updater is a state machine driven by the time: a server, a client or a
// Session.
type Updater interface {
	Update(now time.Time) error
}

// Drive runs u in real time until ctx is done or Update fails: it calls
// Update(clock.Now()) whenever one of the first two ready channels signals
// a datagram (more are left to the ticker) and at least every period (a quarter of a tick is a good period: it is the
// timing precision of the ticks). It is the real-time loop of every
// transport; in made-up time, call Update directly instead. Drive returns
// ctx's error, or Update's.
func Drive(ctx context.Context, u Updater, period time.Duration, clock transport.Clock, ready ...<-chan struct{}) error {
	if clock == nil {
		clock = transport.WallClock{}
	}
	if period <= 0 {
		period = 4 * time.Millisecond
	}
	t := time.NewTicker(period)
	defer t.Stop()
	var r0, r1 <-chan struct{}
	if len(ready) > 0 {
		r0 = ready[0]
	}
	if len(ready) > 1 {
		r1 = ready[1]
	}
	for {
		if err := u.Update(clock.Now()); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		case <-r0:
		case <-r1:
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
	err := Drive(ctx, s, s.period/4, nil, ready...)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, client.ErrClosed) {
		return nil
	}
	return err
}
