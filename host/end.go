package host

import (
	"context"
	"slices"
	"sync"
	"time"
)

// End ends every room's running match on purpose (server.Server.End): no
// tick runs after it; each player and spectator is sent the ticks it
// lacks, resent as during play, then a goodbye that says the match ended
// and names its last tick (codec.ReasonEnded), once it has acknowledged that
// tick or once Server.Linger (plus a spectator's delay) has passed. End
// drives the rooms (Run) until every such match is done with, or ctx is
// done (then it returns nil: Close says goodbye to whoever is left). Call
// it after Run has returned, before Close. A room whose match has not
// started is left as it is.
func (h *Multi[I]) End(ctx context.Context) error {
	h.mu.Lock()
	rooms := slices.Clone(h.order)
	h.mu.Unlock()
	now := h.clock.Now()
	var ending []*roomMatch[I]
	for _, r := range rooms {
		r.mu.Lock()
		if r.m.Server.Started() && !r.closed.Load() {
			r.m.Server.End(now)
			ending = append(ending, r)
		}
		r.mu.Unlock()
	}
	if len(ending) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		h.cancelWhenEnded(ctx, cancel, ending)
	}()
	err := h.Run(ctx)
	cancel()
	wg.Wait()
	return err
}

// cancelWhenEnded calls cancel once every room of ending is done with its
// match's end (or closed, or onto a next match), looking once a tick.
func (h *Multi[I]) cancelWhenEnded(ctx context.Context, cancel context.CancelFunc, ending []*roomMatch[I]) {
	t := time.NewTicker(h.period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ending = slices.DeleteFunc(ending, func(r *roomMatch[I]) bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.closed.Load() || !r.m.Server.Ending() || r.m.Server.Done()
		})
		if len(ending) == 0 {
			h.log.Info("every match ended")
			cancel()
			return
		}
	}
}
