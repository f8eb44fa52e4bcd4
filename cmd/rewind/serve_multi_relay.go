package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/rooms"
)

// serveRooms hosts o.multi.rooms rooms of one process in the relay
// (`rewind serve --relay URL --rooms N`): each a rooms.Host with its own
// WebRTC port and its own Run goroutine (unlike serve --rooms on UDP,
// whose matches share one socket and a worker pool). It prints room=CODE
// once per room (the first the --room code, if given), then http= with
// --http, and at the end one key=value line of the rooms' summed totals.
func serveRooms[I any](ctx context.Context, g rewind.Game[I], o roomServe, n int, stdout io.Writer, log *slog.Logger) error {
	var hosts []*rooms.Hosted[I]
	defer func() {
		for _, h := range hosts {
			h.Close()
		}
	}()
	for i := range n {
		code := ""
		if i == 0 {
			code = o.rooms.room
		}
		hctx, cancel := context.WithTimeout(ctx, o.rooms.timeout)
		h, err := rooms.Host(hctx, g, rooms.HostOptions{
			Relay: o.rooms.relay, Code: code, Server: o.server, HostMigration: o.rooms.migrate,
			Log: o.game.logger(log),
		})
		cancel()
		if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return fmt.Errorf("the relay at %s did not host room %d within %v (--relay-timeout): %w", o.rooms.relay, i+1, o.rooms.timeout, err)
		}
		if err != nil {
			return err
		}
		hosts = append(hosts, h)
	}
	for _, h := range hosts {
		fmt.Fprintf(stdout, "room=%s\n", h.Code())
	}
	if o.http != nil {
		fmt.Fprintf(stdout, "http=%s\n", o.http.Addr())
	}
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Go(func() { errs[i] = h.Run(ctx) })
	}
	wg.Wait()
	var total rewind.HostStats
	for _, h := range hosts {
		if !o.rooms.migrate {
			h.End() // stopped on purpose: the relay says the rooms ended
		}
		s := h.Stats()
		total.Matches += s.Matches
		total.Total = sumServerStats(total.Total, s.Total)
		total.UDP.Refused += s.UDP.Refused
		total.UDP.Malformed += s.UDP.Malformed
	}
	for _, h := range hosts {
		if err := h.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	hosts = nil
	keyValues(stdout, append([]any{"rooms", n}, totalPairs(total.Matches, total.Total, total.UDP)...)...)
	return errors.Join(errs...)
}

// sumServerStats adds the counters serve's last line shows.
func sumServerStats(a, b rewind.ServerStats) rewind.ServerStats {
	a.Tick += b.Tick
	a.Joins += b.Joins
	a.Leaves += b.Leaves
	a.Refused += b.Refused
	a.PlayerTicks += b.PlayerTicks
	a.LateInputs += b.LateInputs
	a.BadDatagrams += b.BadDatagrams
	return a
}
