package udp

import (
	"math/rand/v2"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Handshakes off the reader. A proven HELLO of a new session (its retry
// token checked: an HMAC) costs the server its half of the Noise
// handshake: an X25519 key pair and two Diffie-Hellmans, about 0.1 ms of
// a core (BenchmarkUDPHandshakeServer). Done on the one reader goroutine,
// a flood of them from many addresses (each address within its
// HandshakeRate) delays every datagram of the players behind them. So
// the reader only queues the HELLO (udpHandshakes.add: no crypto, no
// allocation beyond the job) and goes back to reading; HandshakeWorkers
// goroutines take the jobs and open the sessions. The workers bound the
// handshakes' CPU to HandshakeWorkers cores, and a budget for all
// addresses together (HandshakeTotalRate, a token bucket the workers
// draw from before each handshake) bounds their rate: with it spent, the
// workers wait for its next token and the HELLOs wait in the queue.
// Without the budget a flood kept a worker busy with X25519 on a whole
// core, and a match sharing the machine ran late (issue 30 item 4).
//
// The queue (issue 43 item 2) is fair across addresses (an IPv4 address
// or an IPv6 /64, udpRateKey) and forgets what no client waits for:
//   - An address waits in one of three lanes, each first come first
//     served, taken in this order: known (it proved a session within
//     handshakeKnownFor and holds fewer than handshakeKnownUnproven
//     unproven sessions: a player who played from there, which an
//     attacker that does no cryptography never becomes), new (it holds
//     no unproven session) and the rest (a flood's addresses hold
//     several). Each turn serves one job of the address; if it has
//     another, it waits again at the back of the rest, so an address
//     that floods waits behind its own HELLOs (round robin).
//   - A job waits handshakeMaxWait at most: older, it is dropped when
//     its turn comes (no crypto spent) and its client, which repeats its
//     HELLO every HandshakeRetry, queues it again at the back. A flood
//     of fresh addresses faster than the budget thus holds the new lane
//     at handshakeMaxWait's worth of HELLOs, not a backlog that buries
//     the players behind it for tens of seconds, and a player's HELLO is
//     served with the share budget/arrivals each time it queues. (Before,
//     a new address's HELLO went to the front: newest first, so under
//     150 fresh addresses a second a player's was served 1 time in 5,
//     and after the flood the 4,096 stale jobs took 40 s to drain.)
//   - An address queues handshakeQueuePerIP jobs at most: a new one
//     takes the place of its oldest (a client that gave up and dialed
//     again is not kept out by its stale job), and the queue holds
//     handshakeQueue in all; a HELLO that does not fit is dropped
//     unanswered (HandshakesDropped), as is a repeated HELLO of a session
//     whose job waits or runs.

const (
	// handshakeQueue bounds the HELLOs waiting for a worker.
	handshakeQueue = 4096
	// handshakeQueuePerIP bounds one address's HELLOs waiting.
	handshakeQueuePerIP = 2
	// handshakeMaxWait is how long a job waits at most: 4 repeats of a
	// client's HELLO at the default HandshakeRetry, a fifth of its
	// HandshakeTimeout, so that it queues again 4 times or so per dial.
	handshakeMaxWait = time.Second
)

// udpLane is a lane of the handshake queue, in the order they are served.
type udpLane int

const (
	laneKnown udpLane = iota // it proved a session lately
	laneNew                  // it holds no unproven session
	laneRest                 // the others, and an address's further jobs
	udpLanes
)

// udpHandshakeJob is a proven HELLO of a new version-2 session.
type udpHandshakeJob struct {
	from netip.AddrPort
	cid  uint64
	e    [noiseKeyLen]byte
	now  time.Time
}

// udpWaiting is an address's jobs waiting, oldest first, and the lane
// where it waits.
type udpWaiting struct {
	jobs []udpHandshakeJob
	lane udpLane
}

// udpFIFO is a first-in first-out list of addresses: the places in a
// lane, of which live are current (an address that left a lane leaves
// its place behind, skipped when it comes first).
type udpFIFO struct {
	items []netip.Addr
	head  int
	live  int
}

func (f *udpFIFO) len() int { return len(f.items) - f.head }

// push adds a live place for ip at the back.
func (f *udpFIFO) push(ip netip.Addr) {
	f.items = append(f.items, ip)
	f.live++
}

func (f *udpFIFO) pop() netip.Addr {
	ip := f.items[f.head]
	f.items[f.head] = netip.Addr{}
	if f.head++; f.head == len(f.items) {
		f.items, f.head = f.items[:0], 0
	} else if f.head >= 1024 && f.head*2 >= len(f.items) {
		f.items = f.items[:copy(f.items, f.items[f.head:])]
		f.head = 0
	}
	return ip
}

// udpHandshakes is the server's queue of handshakes and its workers.
type udpHandshakes struct {
	mu      sync.Mutex
	idle    *sync.Cond // broadcast when the last job ends
	byIP    map[netip.Addr]*udpWaiting
	lanes   [udpLanes]udpFIFO // addresses with jobs waiting, served in turn
	waiting int
	running int
	dropped *atomic.Uint64          // jobs dropped after they queued (replaced, too old); nil: not counted
	budget  *udpBudget              // nil: no total rate
	starved bool                    // a worker waits for the budget's next token
	busy    map[udpPeerKey]struct{} // jobs waiting or running
	wake    chan struct{}
	quit    chan struct{}
	wg      sync.WaitGroup
}

// startHandshakes starts workers goroutines that open the sessions of
// the HELLOs queued, with s.
func (s *Server) startHandshakes(workers int) *udpHandshakes {
	h := newUDPHandshakes(workers)
	h.budget = newUDPBudget(s.cfg)
	h.dropped = &s.stats.handshakesDropped
	h.wg.Add(workers)
	for range workers {
		go s.handshakeWorker(h)
	}
	return h
}

// newUDPHandshakes returns an empty queue that wakes up to workers.
func newUDPHandshakes(workers int) *udpHandshakes {
	h := &udpHandshakes{byIP: make(map[netip.Addr]*udpWaiting), busy: make(map[udpPeerKey]struct{}),
		wake: make(chan struct{}, workers), quit: make(chan struct{})}
	h.idle = sync.NewCond(&h.mu)
	return h
}

// pending reports whether the session of (from, cid) has a job waiting
// or running.
func (h *udpHandshakes) pending(k udpPeerKey) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.busy[k]
	return ok
}

// add queues j in lane (if its address has no job waiting: else it
// waits where its address does); false if it does not fit (or its
// session's job waits already). An address at handshakeQueuePerIP jobs
// drops its oldest for j, and waits at the back of the rest (it floods).
func (h *udpHandshakes) add(j udpHandshakeJob, lane udpLane) bool {
	ip := udpRateKey(j.from.Addr())
	k := udpPeerKey{j.from, j.cid}
	h.mu.Lock()
	w := h.byIP[ip]
	_, dup := h.busy[k]
	if dup || w == nil && !h.makeRoom(lane) {
		h.mu.Unlock()
		return false
	}
	switch {
	case w == nil:
		w = &udpWaiting{lane: lane}
		h.byIP[ip] = w
		h.lanes[lane].push(ip)
	case len(w.jobs) >= handshakeQueuePerIP:
		h.dropJob(w.jobs[0])
		w.jobs = append(w.jobs[:0], w.jobs[1:]...)
		if w.lane != laneRest {
			if !h.makeRoom(laneRest) {
				h.dropAddr(ip, w)
				h.mu.Unlock()
				return false
			}
			h.lanes[w.lane].live--
			w.lane = laneRest
			h.lanes[laneRest].push(ip) // its place in the other lane is skipped
		}
	}
	w.jobs = append(w.jobs, j)
	h.busy[k] = struct{}{}
	h.waiting++
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default: // every worker has a wake-up pending: they drain the queue
	}
	return true
}

// makeRoom reports whether lane has room for one more address, making
// it if full: the newcomer and each address waiting there have the same
// chance to be the one dropped (random early drop), so that a flood's
// share of the lane is its share of the arrivals, whatever their timing.
// Called with h.mu held.
func (h *udpHandshakes) makeRoom(lane udpLane) bool {
	f := &h.lanes[lane]
	if f.live < h.laneCap(lane) {
		return true
	}
	if rand.IntN(f.live+1) == f.live {
		return false // the newcomer's lot
	}
	for range 16 { // the lane's stale places are a minority: 16 tries find a live one
		ip := f.items[f.head+rand.IntN(f.len())]
		if w := h.byIP[ip]; w != nil && w.lane == lane {
			h.dropAddr(ip, w)
			return true
		}
	}
	return false
}

// laneCap is how many addresses lane holds at most: as many as the
// total budget serves in handshakeMaxWait (more would only wait to be
// dropped), or handshakeQueue without a budget and for the known lane.
func (h *udpHandshakes) laneCap(lane udpLane) int {
	if h.budget == nil || lane == laneKnown {
		return handshakeQueue
	}
	return min(handshakeQueue, max(16, int(h.budget.rate*handshakeMaxWait.Seconds())))
}

// dropJob drops a job that waited. Called with h.mu held.
func (h *udpHandshakes) dropJob(j udpHandshakeJob) {
	delete(h.busy, udpPeerKey{j.from, j.cid})
	h.waiting--
	if h.dropped != nil {
		h.dropped.Add(1)
	}
}

// dropAddr drops w, ip's jobs waiting (its place in its lane is
// skipped). Called with h.mu held.
func (h *udpHandshakes) dropAddr(ip netip.Addr, w *udpWaiting) {
	for _, j := range w.jobs {
		h.dropJob(j)
	}
	h.lanes[w.lane].live--
	delete(h.byIP, ip)
}

// front returns the lane whose first address has a job to serve at
// now, dropping the jobs waiting longer than handshakeMaxWait on the
// way; -1 if none waits. Called with h.mu held.
func (h *udpHandshakes) front(now time.Time) udpLane {
	for l := range udpLanes {
		f := &h.lanes[l]
		for f.len() > 0 {
			ip := f.items[f.head]
			w := h.byIP[ip]
			if w == nil || w.lane != l {
				f.pop() // a place it left (add) or that ended (below)
				continue
			}
			for len(w.jobs) > 0 && now.Sub(w.jobs[0].now) > handshakeMaxWait {
				h.dropJob(w.jobs[0])
				w.jobs = w.jobs[1:]
			}
			if len(w.jobs) > 0 {
				return l
			}
			h.dropAddr(ip, w)
			f.pop()
		}
	}
	return -1
}

// next takes the job of the address whose turn it is at now; false if
// none waits, or if the budget is spent: then wait says when its next
// token comes.
func (h *udpHandshakes) next(now time.Time) (j udpHandshakeJob, ok bool, wait time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lane := h.front(now)
	if lane < 0 {
		if h.running == 0 {
			h.idle.Broadcast() // the last waiting jobs were too old
		}
		return udpHandshakeJob{}, false, 0
	}
	if h.budget != nil {
		if wait = h.budget.take(now); wait > 0 {
			if h.starved = true; h.running == 0 {
				h.idle.Broadcast()
			}
			return udpHandshakeJob{}, false, wait
		}
	}
	h.starved = false
	ip := h.lanes[lane].pop()
	w := h.byIP[ip]
	j = w.jobs[0]
	h.lanes[lane].live--
	if w.jobs = w.jobs[1:]; len(w.jobs) > 0 {
		w.lane = laneRest
		h.lanes[laneRest].push(ip)
	} else {
		delete(h.byIP, ip)
	}
	h.waiting--
	h.running++
	return j, true, 0
}

// done ends j's job.
func (h *udpHandshakes) done(j udpHandshakeJob) {
	h.mu.Lock()
	delete(h.busy, udpPeerKey{j.from, j.cid})
	if h.running--; h.running == 0 && (h.waiting == 0 || h.starved) {
		h.idle.Broadcast()
	}
	h.mu.Unlock()
}

// wait returns once no job runs, and none waits or the budget is spent
// (tests: a HELLO handed to Server.handle has had its answer, or waits
// for the budget).
func (h *udpHandshakes) wait() {
	h.mu.Lock()
	for h.running > 0 || h.waiting > 0 && !h.starved {
		h.idle.Wait()
	}
	h.mu.Unlock()
}

// poke has a worker look at the budget again (tests: after advancing a
// made-up clock); wait then returns only once it has.
func (h *udpHandshakes) poke() {
	h.mu.Lock()
	h.starved = false
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// stop ends the workers once their jobs end; the jobs still waiting are
// dropped.
func (h *udpHandshakes) stop() {
	close(h.quit)
	h.wg.Wait()
}

// handshakeWorker opens the sessions of queued HELLOs until stop.
func (s *Server) handshakeWorker(h *udpHandshakes) {
	defer h.wg.Done()
	out := make([]byte, 0, 128)
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	for {
		select {
		case <-h.quit:
			return
		case <-h.wake:
		case <-retry.C:
		}
		for {
			j, ok, wait := h.next(s.cfg.Clock.Now())
			if wait > 0 {
				retry.Reset(wait) // the budget's next token
			}
			if !ok {
				break
			}
			out = s.handshake(j, out)
			h.done(j)
		}
	}
}

// udpBudget is the token bucket of the handshakes of all addresses
// together (Config.HandshakeTotalRate); guarded by its udpHandshakes' mu,
// or, for the handshakes on the reader, by udpReaderBudget's.
type udpBudget struct {
	rate, burst float64
	udpBucket
}

// newUDPBudget returns cfg's total handshake budget, full; nil if it has
// none (a negative HandshakeTotalRate).
func newUDPBudget(cfg Config) *udpBudget {
	if cfg.HandshakeTotalRate <= 0 {
		return nil
	}
	burst := float64(max(cfg.HandshakeTotalBurst, 1))
	return &udpBudget{rate: cfg.HandshakeTotalRate, burst: burst, udpBucket: udpBucket{tokens: burst}}
}

// udpReaderBudget is the total budget of the handshakes run on the
// reader (Config.HandshakeWorkers < 0). With no queue to wait in, a HELLO
// that finds the budget spent is dropped (HandshakesDropped) and its
// client repeats it; so that a newcomer (an address, IPv6: a /64,
// holding no unproven session) still goes before a flood, as in the workers' queue, the
// others leave the budget's last token to it.
type udpReaderBudget struct {
	mu sync.Mutex
	b  *udpBudget
}

// allow takes a token at now, if there is one for a HELLO of a newcomer
// (first) or of another.
func (r *udpReaderBudget) allow(now time.Time, first bool) bool {
	need := 2.0 // the last token is the newcomers'
	if first || r.b.burst < need {
		need = 1
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.b.refill(now.UnixNano(), r.b.rate, r.b.burst)
	if r.b.tokens < need {
		return false
	}
	r.b.tokens--
	return true
}

// take takes a token at now, or says how long until the next comes.
func (b *udpBudget) take(now time.Time) time.Duration {
	b.refill(now.UnixNano(), b.rate, b.burst)
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return max(time.Millisecond, time.Duration((1-b.tokens)/b.rate*float64(time.Second)))
}

// handshake runs the server's half of j's handshake and opens its
// session.
func (s *Server) handshake(j udpHandshakeJob, out []byte) []byte {
	fresh, err := s.respond(j.cid, j.e[:], j.from)
	if err != nil {
		s.stats.badToken.Add(1)
		return out
	}
	return s.register(j.from, j.cid, j.e[:], fresh, j.now, out)
}
