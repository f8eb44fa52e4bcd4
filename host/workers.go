package host

import (
	"container/heap"
	"slices"
	"sync"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// workerRun is how many due rooms a worker takes at once and runs back
// to back before it sends their datagrams in one batch: up to 16 rooms'
// updates (tens of microseconds each) delay the first room's sends,
// never past a tick.
const workerRun = 16

// scheduler is what Run's workers share: the rooms by deadline and the
// rooms due at once (a datagram wants an answer), which the workers take
// themselves. Of the idle workers, one (the leader) sleeps until the
// earliest deadline; the others sleep until they are woken (followers).
// A room's tick thus costs the leader's one wake-up, with no hand-off
// between goroutines; a follower is woken only when due rooms are left
// over or a datagram made a room due while the others are busy.
type scheduler[I any] struct {
	h    *Multi[I]
	quit chan struct{} // closed: the workers return

	mu       sync.Mutex
	heap     roomHeap[I]
	ready    []*roomMatch[I] // due at once, in the order they came due
	leader   *schedWorker    // the idle worker waiting for leaderAt
	leaderAt time.Time
	idle     []*schedWorker // followers: idle, waiting to be woken
	// perRoom is how long a room's update has taken lately (a moving
	// average, nanoseconds): a leader that takes rooms wakes a follower
	// to lead if the next deadline falls before it will be done.
	perRoom int64
	// With a drained socket (Multi.drainer): a worker drains it now
	// (due wakes no other worker meanwhile: the drainer takes the rooms
	// next), when it was last drained, and until when every phase is
	// drained (a tick after a drain that found it busy: drainBusy).
	draining  bool
	lastDrain time.Time
	busyUntil time.Time
}

// schedWorker is one of Run's workers as the scheduler sees it.
type schedWorker struct {
	wake chan struct{} // one token: woken (the scheduler took it off idle or leader)
}

func newScheduler[I any](h *Multi[I]) *scheduler[I] {
	return &scheduler[I]{h: h, quit: make(chan struct{})}
}

// due makes r run as soon as a worker can: the dispatcher calls it for a
// datagram that wants an answer, and for a room just opened.
func (s *scheduler[I]) due(r *roomMatch[I]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dueLocked(r)
}

func (s *scheduler[I]) dueLocked(r *roomMatch[I]) {
	switch {
	case r.busy:
		// A worker has it (finished puts it back): run again after.
		r.pending = true
		return
	case r.queued:
		return
	}
	if r.index >= 0 {
		heap.Remove(&s.heap, r.index)
	}
	r.queued = true
	s.ready = append(s.ready, r)
	if !s.draining {
		s.wakeOneLocked()
	}
}

// add schedules a room for its deadline (a room new to this Run).
func (s *scheduler[I]) add(r *roomMatch[I], deadline time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.busy || r.queued || r.index >= 0 {
		return
	}
	r.deadline = deadline
	heap.Push(&s.heap, r)
	s.nudgeLocked(deadline)
}

// nudgeLocked wakes a worker if nobody waits for deadline, now the
// earliest or earlier than what the leader waits for.
func (s *scheduler[I]) nudgeLocked(deadline time.Time) {
	switch {
	case s.leader != nil && deadline.Before(s.leaderAt):
		s.wakeLocked(s.leader)
	case s.leader == nil:
		s.wakeOneLocked()
	}
}

// wakeOneLocked wakes a follower if one is idle, else the leader if it
// waits, else nobody (every worker is running rooms and will look again).
func (s *scheduler[I]) wakeOneLocked() {
	if n := len(s.idle); n > 0 {
		s.wakeLocked(s.idle[n-1])
		return
	}
	if s.leader != nil {
		s.wakeLocked(s.leader)
	}
}

// wakeLocked takes w off the idle workers (or the lead) and wakes it.
func (s *scheduler[I]) wakeLocked(w *schedWorker) {
	if s.leader == w {
		s.leader = nil
	}
	s.idle = slices.DeleteFunc(s.idle, func(x *schedWorker) bool { return x == w })
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// take returns up to max rooms to run now, marked busy: those due at
// once first, then those whose deadline has come.
func (s *scheduler[I]) takeLocked(now time.Time, run []*roomMatch[I], max int) []*roomMatch[I] {
	for len(s.ready) > 0 && len(run) < max {
		r := s.ready[0]
		s.ready[0] = nil
		s.ready = s.ready[1:]
		r.queued = false
		run = append(run, s.claim(r))
	}
	if len(s.ready) == 0 {
		s.ready = s.ready[:0:0] // let the drained backing array go
	}
	for len(run) < max && len(s.heap) > 0 && !s.heap[0].deadline.After(now) {
		run = append(run, s.claim(heap.Pop(&s.heap).(*roomMatch[I])))
	}
	return run
}

func (s *scheduler[I]) claim(r *roomMatch[I]) *roomMatch[I] {
	r.busy, r.pending = true, false
	return r
}

// finishedLocked takes r back from the worker that ran it: its next
// deadline goes into the heap, a failed or ended (FreeEnded) room closes
// (closed returns it for the caller to close outside the lock), a closed
// one is dropped.
func (s *scheduler[I]) finishedLocked(r *roomMatch[I], now time.Time) (close bool) {
	r.busy = false
	r.lazy.Store(r.ticking)
	switch {
	case r.closed.Load():
		return false
	case r.err != nil, r.ended && s.h.opts.FreeEnded:
		return true
	}
	r.deadline = r.next
	if r.deadline.IsZero() {
		r.deadline = now.Add(idlePoll)
	}
	if r.pending {
		r.pending = false
		s.dueLocked(r)
		return false
	}
	heap.Push(&s.heap, r)
	return false
}

// finished takes back the rooms a worker ran (in took: it adds that to
// the moving average of a room's run) and closes those that failed or
// ended.
func (s *scheduler[I]) finished(run []*roomMatch[I], now time.Time, took time.Duration) {
	var closing []*roomMatch[I]
	s.mu.Lock()
	if len(run) > 0 && took > 0 {
		s.perRoom += (int64(took)/int64(len(run)) - s.perRoom) / 8
	}
	for _, r := range run {
		if s.finishedLocked(r, now) {
			closing = append(closing, r)
		}
	}
	// No nudge: the calling worker looks at the heap next, and leads
	// if its earliest deadline is sooner than the leader's.
	s.mu.Unlock()
	for _, r := range closing {
		s.h.closeFinished(r)
	}
}

// worker runs due rooms until the scheduler quits. With a batch (the
// Conn is a transport.Batcher) it takes up to workerRun due rooms at a
// time and their updates' datagrams leave together (one sendmmsg for up
// to 64) once the last has run.
func (s *scheduler[I]) worker(batch transport.Batch) {
	w := &schedWorker{wake: make(chan struct{}, 1)}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	most := 1
	if batch != nil {
		most = workerRun
	}
	run := make([]*roomMatch[I], 0, most)
	for {
		select {
		case <-s.quit:
			return
		default:
		}
		now := s.h.clock.Now()
		if s.drainNow(now) {
			now = s.h.clock.Now()
		}
		s.mu.Lock()
		run = s.takeLocked(now, run[:0], most)
		if len(run) > 0 {
			s.handOffLocked(now, len(run))
			s.mu.Unlock()
			s.h.runRooms(run, batch)
			done := s.h.clock.Now()
			s.finished(run, done, done.Sub(now))
			continue
		}
		wait := time.Duration(-1)
		if next, ok := s.nextWakeLocked(); ok && (s.leader == nil || next.Before(s.leaderAt)) {
			// w leads: a leader waiting for a later deadline (a room this
			// or another worker ran since came due sooner) wakes at its
			// own and finds it no longer leads.
			s.leader, s.leaderAt = w, next
			wait = max(s.leaderAt.Sub(now), 0)
		} else {
			s.idle = append(s.idle, w)
		}
		s.mu.Unlock()
		if !s.sleep(w, timer, wait) {
			return
		}
	}
}

// handOffLocked, as a worker is about to run n rooms, wakes another
// worker if rooms are left that are due already or will be before the
// n are done (as long as n rooms took lately).
func (s *scheduler[I]) handOffLocked(now time.Time, n int) {
	switch {
	case len(s.ready) > 0:
	case len(s.heap) > 0 && s.heap[0].deadline.Before(now.Add(time.Duration(int64(n)*s.perRoom))):
	default:
		return
	}
	if len(s.idle) > 0 {
		s.wakeLocked(s.idle[len(s.idle)-1])
	}
}

// sleep waits until w is woken, or for wait if it is not negative (w
// leads), or until the scheduler quits (false). It takes w off the
// idle workers and the lead.
func (s *scheduler[I]) sleep(w *schedWorker, timer *time.Timer, wait time.Duration) bool {
	var timeout <-chan time.Time
	wait, at := s.fineWait(wait)
	if wait >= 0 {
		timer.Reset(wait)
		timeout = timer.C
	}
	ok := true
	select {
	case <-w.wake:
	case <-timeout:
		s.fineRest(at)
	case <-s.quit:
		ok = false
	}
	if wait >= 0 && !timer.Stop() {
		select { // a timer that fired unread (Go 1.23+ timers drop it anyway)
		case <-timer.C:
		default:
		}
	}
	s.mu.Lock()
	if s.leader == w {
		s.leader = nil
	}
	s.idle = slices.DeleteFunc(s.idle, func(x *schedWorker) bool { return x == w })
	s.mu.Unlock()
	return ok
}

// runRooms updates the rooms of run one after the other, their sends into
// batch (if not nil), then flushes it; it notes how late each due tick's
// datagrams left (tickLate).
func (h *Multi[I]) runRooms(run []*roomMatch[I], batch transport.Batch) {
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
	sent := h.clock.Now()
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
func (h *Multi[I]) runRoom(r *roomMatch[I], batch transport.Batch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h.updates.Add(1)
	now := h.clock.Now()
	r.due = r.m.Server.Started() && !now.Before(r.deadline)
	if r.due {
		r.late = now.Sub(r.deadline)
		h.startLag.add(r.late)
		if batch == nil {
			h.lag.add(r.late)
		}
	}
	started := r.m.Started
	r.sub.batch = batch
	r.err = r.m.Update(now)
	r.sub.batch = nil
	r.ran = h.clock.Now()
	r.ended = started && !r.m.Started
	if r.ended {
		h.releasePhase(r)
	}
	r.next = r.m.Server.NextDeadline()
	r.ticking = h.lazyInputs && r.m.Server.Started() && !r.m.Server.Ending()
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
