package rewind

import (
	"container/heap"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// idlePoll is how often a room whose match has not started (no tick due)
// is updated anyway, for its timers (a hello that never completes, a
// player that vanished before the start).
const idlePoll = 250 * time.Millisecond

// Run drives every room in real time until ctx is done (then it returns
// nil) or the shared Conn fails. It does not close the host. One
// dispatcher (the calling goroutine) reads the Conn, routes each datagram
// to its room's queue and keeps the rooms' deadlines in a heap; Workers
// goroutines run the rooms' updates, each due room on one worker at a
// time. A room runs at its next tick, and early for a datagram that wants
// an answer or changes what is due: anything but a player's inputs, and
// inputs too while its match does not tick on its own (not started yet,
// ending, or held by a stall policy) or once its queue is half full. A
// player's inputs otherwise wait in the queue for the tick, which is when
// the server needs them; the server measures them as of their arrival
// (transport.Stamped), so waiting changes no margin or round trip. A
// worker sends everything a room's update sends as one batch when the
// Conn is a transport.Batcher (a UDP socket: one sendmmsg).
func (h *MultiHost[I]) Run(ctx context.Context) error {
	h.reschedule()
	work := make(chan *roomMatch[I], 2*h.opts.MaxMatches+h.opts.Workers)
	done := make(chan *roomMatch[I], 2*h.opts.MaxMatches+h.opts.Workers)
	var wg sync.WaitGroup
	for range h.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.worker(work, done)
		}()
	}
	d := dispatcher[I]{h: h, work: work}
	err := d.loop(ctx, done)
	close(work)
	wg.Wait()
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

// reschedule has every room start afresh in the Run about to begin: an
// earlier Run (End's, after the one a caller ran) may have left rooms in
// its heap or queued for its workers.
func (h *MultiHost[I]) reschedule() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.order {
		r.index, r.busy, r.pending = -1, false, false
	}
	h.fresh = slices.Clone(h.order)
}

// dispatcher is Run's state: the rooms by deadline, and the work queue.
type dispatcher[I any] struct {
	h     *MultiHost[I]
	work  chan<- *roomMatch[I]
	heap  roomHeap[I]
	swept time.Time // when routes were last forgotten
}

func (d *dispatcher[I]) loop(ctx context.Context, done <-chan *roomMatch[I]) error {
	h := d.h
	buf := make([]byte, transport.MaxDatagram+1)
	timer := time.NewTimer(h.period)
	defer timer.Stop()
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
				read = time.Now()
			}
			if r, soon := h.route(from, buf[:n], read); soon {
				d.enqueue(r)
			}
		}
		now := time.Now()
		d.takeFresh(now)
		for len(d.heap) > 0 && !d.heap[0].deadline.After(now) {
			d.enqueue(d.heap[0])
		}
		if now.Sub(d.swept) >= time.Second {
			d.swept = now
			h.forget(now)
		}
		wait := h.period
		if len(d.heap) > 0 {
			wait = min(max(d.heap[0].deadline.Sub(now), 0), wait)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		case <-h.conn.Ready():
		case <-h.wake:
		case r := <-done:
			d.finished(r, time.Now())
			for more := true; more; { // every other room that is done
				select {
				case r := <-done:
					d.finished(r, time.Now())
				default:
					more = false
				}
			}
		}
	}
}

// takeFresh schedules the rooms opened since the last look.
func (d *dispatcher[I]) takeFresh(now time.Time) {
	d.h.mu.Lock()
	fresh := d.h.fresh
	d.h.fresh = nil
	d.h.mu.Unlock()
	for _, r := range fresh {
		if r.busy || r.index >= 0 {
			// A datagram routed to it ran it already: finished puts it
			// in the heap; it runs again then.
			r.pending = true
			continue
		}
		r.deadline = now
		heap.Push(&d.heap, r)
	}
}

// enqueue hands r to a worker, or, if one has it already, marks it to run
// again when that one is done.
func (d *dispatcher[I]) enqueue(r *roomMatch[I]) {
	if r.busy {
		// Out of the heap while a worker has it (finished puts it back):
		// a due busy room left at the top would be enqueued forever.
		r.pending = true
		if r.index >= 0 {
			heap.Remove(&d.heap, r.index)
		}
		return
	}
	if r.index >= 0 {
		heap.Remove(&d.heap, r.index)
	}
	r.busy, r.pending = true, false
	d.work <- r // never blocks: a room is in the queue at most once
}

// finished takes r back from a worker: its next deadline goes into the
// heap, a failed or ended (FreeEnded) room closes, a closed one is
// dropped.
func (d *dispatcher[I]) finished(r *roomMatch[I], now time.Time) {
	h := d.h
	r.busy = false
	r.lazy = r.ticking
	switch {
	case r.closed.Load():
		return
	case r.err != nil:
		h.log.Error("room failed", "room", r.code, "err", errRoomUpdate(r.code, r.err))
		h.closeRoom(r, ReasonShutdown)
		return
	case r.ended && h.opts.FreeEnded:
		h.closeRoom(r, ReasonEnded)
		return
	}
	r.deadline = r.next
	if r.deadline.IsZero() {
		r.deadline = now.Add(idlePoll)
	}
	heap.Push(&d.heap, r)
	if r.pending {
		d.enqueue(r)
	}
}

// workerRun is how many rooms a worker runs back to back, taking those
// already waiting in the work queue, before it sends their datagrams in
// one batch: up to 16 rooms' updates (tens of microseconds each) delay
// the first room's sends, never past a tick.
const workerRun = 16

// worker runs the rooms it is handed until work closes. With a batch (the
// Conn is a transport.Batcher), the rooms it finds waiting one after
// another, up to workerRun, share it: their updates' datagrams leave
// together (one sendmmsg for up to 64) once the last has run, and only
// then go the rooms back to the dispatcher.
func (h *MultiHost[I]) worker(work <-chan *roomMatch[I], done chan<- *roomMatch[I]) {
	var batch transport.Batch
	if h.batcher != nil {
		batch = h.batcher.NewBatch()
	}
	run := make([]*roomMatch[I], 0, workerRun)
	for r := range work {
		run = append(run[:0], r)
		for more := batch != nil; more && len(run) < workerRun; {
			select {
			case r, ok := <-work:
				if !ok {
					more = false
					break
				}
				run = append(run, r)
			default:
				more = false
			}
		}
		h.runRooms(run, batch)
		for _, r := range run {
			done <- r
		}
	}
}

// runRooms updates the rooms of run one after the other, their sends into
// batch (if not nil), then flushes it; it notes how late each due tick's
// datagrams left (tickLate).
func (h *MultiHost[I]) runRooms(run []*roomMatch[I], batch transport.Batch) {
	for _, r := range run {
		r.due = false
		if !r.closed.Load() {
			h.runRoom(r, batch)
		}
	}
	if batch == nil {
		return
	}
	err := batch.Flush()
	sent := time.Now()
	for _, r := range run {
		if err != nil && r.err == nil && !r.closed.Load() {
			r.err = err
		}
		if r.due {
			h.lag.add(r.late + sent.Sub(r.ran))
		}
	}
}

// runRoom updates r at the present time, its sends into batch (if not
// nil, unflushed), and notes how late a due tick started: in the lag
// histogram at once without a batch, else in r.late for runRooms, which
// adds how long the sends then waited for the batch's other rooms.
func (h *MultiHost[I]) runRoom(r *roomMatch[I], batch transport.Batch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h.updates.Add(1)
	now := time.Now()
	r.due = r.m.srv.Started() && !now.Before(r.deadline)
	if r.due {
		r.late = now.Sub(r.deadline)
		if batch == nil {
			h.lag.add(r.late)
		}
	}
	started := r.m.started
	r.sub.batch = batch
	r.err = r.m.update(now)
	r.sub.batch = nil
	r.ran = time.Now()
	r.ended = started && !r.m.started
	r.next = r.m.srv.NextDeadline()
	r.ticking = h.lazyInputs && r.m.srv.Started() && !r.m.srv.Ending()
}

// roomHeap orders rooms by deadline (container/heap).
type roomHeap[I any] []*roomMatch[I]

func (q roomHeap[I]) Len() int           { return len(q) }
func (q roomHeap[I]) Less(i, j int) bool { return q[i].deadline.Before(q[j].deadline) }
func (q roomHeap[I]) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}

// Push implements heap.Interface.
func (q *roomHeap[I]) Push(x any) {
	r := x.(*roomMatch[I])
	r.index = len(*q)
	*q = append(*q, r)
}

// Pop implements heap.Interface.
func (q *roomHeap[I]) Pop() any {
	old := *q
	r := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	r.index = -1
	return r
}

// LagBucket is the width of a bucket of Lag, and lagBuckets their number:
// 0 to 100 ms in steps of 0.1 ms, the last bucket holding the rest.
const (
	LagBucket  = 100 * time.Microsecond
	lagBuckets = 1001
)

// Lag is a histogram of how late ticks started after they were due
// (MultiHost.TickLag), counting also the time their datagrams waited for
// the other rooms of their worker's batch: Counts[i] counts the ticks
// that were i to i+1 LagBuckets late, the last bucket every later one.
type Lag struct {
	Counts [lagBuckets]uint64
}

// N returns the number of ticks counted.
func (l *Lag) N() uint64 {
	var n uint64
	for _, c := range l.Counts {
		n += c
	}
	return n
}

// Sub returns the ticks counted in l and not in o (o taken earlier).
func (l Lag) Sub(o Lag) Lag {
	for i := range l.Counts {
		l.Counts[i] -= o.Counts[i]
	}
	return l
}

// Quantile returns the upper edge of the bucket holding the q-th quantile
// (0 < q <= 1) of the lateness, and 0 when nothing was counted.
func (l *Lag) Quantile(q float64) time.Duration {
	n := l.N()
	if n == 0 {
		return 0
	}
	want := uint64(q*float64(n) + 0.5)
	want = max(want, 1)
	var seen uint64
	for i, c := range l.Counts {
		seen += c
		if seen >= want {
			return time.Duration(i+1) * LagBucket
		}
	}
	return time.Duration(lagBuckets) * LagBucket
}

// lagHistogram is Lag with atomic counters.
type lagHistogram struct {
	counts [lagBuckets]atomic.Uint64
}

func (h *lagHistogram) add(d time.Duration) {
	i := min(int(d/LagBucket), lagBuckets-1)
	h.counts[max(i, 0)].Add(1)
}

func (h *lagHistogram) snapshot() Lag {
	var l Lag
	for i := range h.counts {
		l.Counts[i] = h.counts[i].Load()
	}
	return l
}
