package udp

import (
	"net/netip"
	"sync"
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
// goroutines take the jobs and open the sessions. The queue is bounded
// in all (handshakeQueue jobs) and per address (an IPv4 address or an
// IPv6 /64: handshakeQueuePerIP), and served round robin over the
// addresses that wait: an address that floods waits behind its own
// HELLOs while a newcomer's is served within one round (one job per
// waiting address), or next if its address (IPv6: its /64, as for the
// queue and the rates) holds no unproven session (a flood's addresses
// hold several; one rotating addresses within a /64 is no newcomer). A HELLO that does not fit is dropped unanswered
// (HandshakesDropped) and the client sends it again (HandshakeRetry); a
// repeated HELLO of a session whose job waits or runs is dropped too.
// The workers bound the handshakes' CPU to HandshakeWorkers cores, and
// a budget for all addresses together (HandshakeTotalRate, a token bucket
// the workers draw from before each handshake) bounds their rate: with
// it spent, the workers wait for its next token and the HELLOs wait in
// the queue (newcomers first, as above) or are dropped beyond it. Without
// the budget a flood kept a worker busy with X25519 on a whole core,
// and a match sharing the machine ran late (issue 30 item 4).

const (
	// handshakeQueue bounds the HELLOs waiting for a worker.
	handshakeQueue = 4096
	// handshakeQueuePerIP bounds one address's HELLOs waiting.
	handshakeQueuePerIP = 2
)

// udpHandshakeJob is a proven HELLO of a new version-2 session.
type udpHandshakeJob struct {
	from netip.AddrPort
	cid  uint64
	e    [noiseKeyLen]byte
	now  time.Time
}

// udpHandshakes is the server's queue of handshakes and its workers.
type udpHandshakes struct {
	mu      sync.Mutex
	idle    *sync.Cond // broadcast when the last job ends
	byIP    map[netip.Addr][]udpHandshakeJob
	order   []netip.Addr // addresses with jobs waiting, served in turn
	waiting int
	running int
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
	h.wg.Add(workers)
	for range workers {
		go s.handshakeWorker(h)
	}
	return h
}

// newUDPHandshakes returns an empty queue that wakes up to workers.
func newUDPHandshakes(workers int) *udpHandshakes {
	h := &udpHandshakes{byIP: make(map[netip.Addr][]udpHandshakeJob), busy: make(map[udpPeerKey]struct{}),
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

// add queues j; false if it does not fit (or its session's job waits
// already). With first, j's address, if it has no job waiting, is served
// next (an address that holds no unproven session: not a flood's).
func (h *udpHandshakes) add(j udpHandshakeJob, first bool) bool {
	ip := udpRateKey(j.from.Addr())
	k := udpPeerKey{j.from, j.cid}
	h.mu.Lock()
	list := h.byIP[ip]
	_, dup := h.busy[k]
	if dup || h.waiting >= handshakeQueue || len(list) >= handshakeQueuePerIP {
		h.mu.Unlock()
		return false
	}
	switch {
	case len(list) == 0 && first:
		h.order = append(h.order, netip.Addr{})
		copy(h.order[1:], h.order)
		h.order[0] = ip
	case len(list) == 0:
		h.order = append(h.order, ip)
	}
	h.byIP[ip] = append(list, j)
	h.busy[k] = struct{}{}
	h.waiting++
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default: // every worker has a wake-up pending: they drain the queue
	}
	return true
}

// next takes the job of the address whose turn it is at now; false if
// none waits, or if the budget is spent: then wait says when its next
// token comes.
func (h *udpHandshakes) next(now time.Time) (j udpHandshakeJob, ok bool, wait time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.order) == 0 {
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
	ip := h.order[0]
	h.order = h.order[1:]
	list := h.byIP[ip]
	j = list[0]
	if list = list[1:]; len(list) > 0 {
		h.byIP[ip] = list
		h.order = append(h.order, ip)
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
