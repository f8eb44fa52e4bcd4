package host

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/transport"
)

// idlePoll is how often a room whose match has not started (no tick due)
// is updated anyway, for its timers (a hello that never completes, a
// player that vanished before the start).
const idlePoll = 250 * time.Millisecond

// Run drives every room in real time until ctx is done (then it returns
// nil) or the shared Conn fails. It does not close the host. One
// dispatcher (the calling goroutine) reads the Conn and routes each
// datagram to its room's queue (a Conn that is a transport.Handoff, a
// UDP socket, has its reader route them as it reads them, and the
// dispatcher only takes newly opened rooms); Workers goroutines run the rooms'
// updates, each room on one worker at a time, taking the due rooms
// themselves from the deadlines they share (scheduler): a room's tick
// costs one wake-up of the worker waiting for it, no hand-off. A room
// runs at its next tick, and early for a datagram that wants an answer
// or changes what is due: anything but a player's inputs, and inputs too
// while its match does not tick on its own (not started yet, ending, or
// held by a stall policy) or once its queue is half full. A player's
// inputs otherwise wait in the queue for the tick, which is when the
// server needs them; the server measures them as of their arrival
// (transport.Stamped), so waiting changes no margin or round trip. A
// worker sends everything its rooms' updates send as one batch when the
// Conn is a transport.Batcher (a UDP socket: one sendmmsg).
func (h *Multi[I]) Run(ctx context.Context) error {
	h.reschedule()
	s := newScheduler(h)
	var wg sync.WaitGroup
	for range h.opts.Workers {
		var batch transport.Batch
		if h.batcher != nil {
			batch = h.batcher.NewBatch()
		}
		wg.Go(func() { s.worker(batch) })
	}
	ho, handoff := h.conn.(transport.Handoff)
	if handoff {
		// The socket's reader routes each datagram as it reads it: no
		// wake-up of the dispatcher per batch read.
		ho.SetHandler(func(from transport.Addr, p []byte, at time.Time) {
			if r, soon := h.route(from, p, at); soon {
				s.due(r)
			}
		})
	}
	d := dispatcher[I]{h: h, s: s}
	err := d.loop(ctx)
	if handoff {
		ho.SetHandler(nil)
	}
	close(s.quit)
	wg.Wait()
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

// reschedule has every room start afresh in the Run about to begin: an
// earlier Run (End's, after the one a caller ran) may have left rooms in
// its heap or queued for its workers.
func (h *Multi[I]) reschedule() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.order {
		r.index, r.busy, r.pending, r.queued = -1, false, false, false
	}
	h.fresh = slices.Clone(h.order)
}

// dispatcher is Run's reading side: it routes datagrams to the rooms and
// makes due at once the rooms a datagram wants run.
type dispatcher[I any] struct {
	h     *Multi[I]
	s     *scheduler[I]
	swept time.Time // when routes were last forgotten
}

func (d *dispatcher[I]) loop(ctx context.Context) error {
	h := d.h
	buf := make([]byte, transport.MaxDatagram+1)
	sweep := time.NewTicker(time.Second)
	defer sweep.Stop()
	for {
		var read time.Time
		for k := 0; ; k++ {
			n, from, err := h.conn.Recv(buf)
			if errors.Is(err, transport.ErrWouldBlock) {
				break
			}
			if err != nil {
				return err
			}
			if k%64 == 0 {
				// The datagrams' arrival as their rooms' servers see it:
				// one clock read for up to 64 read one after another
				// (within tens of microseconds).
				read = h.clock.Now()
			}
			if r, soon := h.route(from, buf[:n], read); soon {
				d.s.due(r)
			}
		}
		now := h.clock.Now()
		d.takeFresh(now)
		if now.Sub(d.swept) >= time.Second {
			d.swept = now
			h.forget(now)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-sweep.C:
		case <-h.conn.Ready():
		case <-h.wake:
		}
	}
}

// takeFresh schedules the rooms opened since the last look, due now.
func (d *dispatcher[I]) takeFresh(now time.Time) {
	d.h.mu.Lock()
	fresh := d.h.fresh
	d.h.fresh = nil
	d.h.mu.Unlock()
	for _, r := range fresh {
		d.s.add(r, now)
	}
}

// closeFinished closes a room its worker found failed or ended
// (FreeEnded).
func (h *Multi[I]) closeFinished(r *roomMatch[I]) {
	if r.err != nil {
		h.log.Error("room failed", "room", r.code, "err", errRoomUpdate(r.code, r.err))
		h.closeRoom(r, codec.ReasonShutdown)
		return
	}
	h.closeRoom(r, codec.ReasonEnded)
}
