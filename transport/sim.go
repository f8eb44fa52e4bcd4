package transport

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// SimPrefix begins the text of every address on a SimNetwork: the endpoint
// named "server" has the Addr "sim:server".
const SimPrefix = "sim:"

// simInboxLimit is how many datagrams wait in one endpoint's inbox before
// further arrivals are dropped (a socket's receive buffer).
const simInboxLimit = 4096

// simFreeLimit bounds the network's pool of spare datagram buffers.
const simFreeLimit = 4096

// LinkConfig is how a one-way link between two endpoints of a SimNetwork
// treats the datagrams that cross it. The zero value is a perfect link:
// no delay, no loss, unlimited bandwidth.
//
// A datagram first waits its turn on the link (BytesPerSecond, QueueLimit),
// then is lost with probability Loss, and otherwise arrives after Latency ±
// Jitter (uniform), plus ReorderDelay with probability Reorder. With
// probability Duplicate a second copy arrives, with its own jitter and
// reordering draw.
type LinkConfig struct {
	// Latency is the one-way delay.
	Latency time.Duration
	// Jitter is the largest deviation from Latency, either way, drawn
	// uniformly for every datagram; the delay never goes below zero. Jitter
	// alone can already reorder datagrams sent close together.
	Jitter time.Duration
	// Loss is the probability, from 0 to 1, that a datagram is dropped.
	Loss float64
	// Duplicate is the probability that a datagram arrives twice.
	Duplicate float64
	// Reorder is the probability that a datagram is held back by
	// ReorderDelay, so that datagrams sent after it overtake it.
	Reorder float64
	// ReorderDelay is the extra delay of a reordered datagram; zero means
	// 10 ms plus twice Jitter.
	ReorderDelay time.Duration
	// BytesPerSecond caps the link's rate (payload bytes); a datagram waits
	// until the ones before it have been sent. Zero means unlimited.
	BytesPerSecond int64
	// QueueLimit drops a datagram that would wait on a capped link longer
	// than this (a router's buffer filling up). Zero means no limit.
	QueueLimit time.Duration
}

// SimStats counts one endpoint's traffic on a SimNetwork.
type SimStats struct {
	// SentDatagrams and SentBytes count the datagrams the endpoint's Send
	// accepted, whatever became of them.
	SentDatagrams, SentBytes uint64
	// ReceivedDatagrams and ReceivedBytes count the datagrams delivered to
	// the endpoint's inbox (duplicates included).
	ReceivedDatagrams, ReceivedBytes uint64
	// Lost counts the endpoint's datagrams dropped by link loss.
	Lost uint64
	// Duplicated counts extra copies made of the endpoint's datagrams.
	Duplicated uint64
	// QueueDropped counts the endpoint's datagrams dropped because the
	// link's queue was over its QueueLimit.
	QueueDropped uint64
	// BlackoutDropped counts datagrams the endpoint did not say or did not
	// hear because it was blacked out.
	BlackoutDropped uint64
	// Unroutable counts the endpoint's datagrams sent to an endpoint that
	// was closed or did not exist (yet).
	Unroutable uint64
	// OverflowDropped counts datagrams that arrived at the endpoint while
	// its inbox was full.
	OverflowDropped uint64
}

func (s *SimStats) add(o SimStats) {
	s.SentDatagrams += o.SentDatagrams
	s.SentBytes += o.SentBytes
	s.ReceivedDatagrams += o.ReceivedDatagrams
	s.ReceivedBytes += o.ReceivedBytes
	s.Lost += o.Lost
	s.Duplicated += o.Duplicated
	s.QueueDropped += o.QueueDropped
	s.BlackoutDropped += o.BlackoutDropped
	s.Unroutable += o.Unroutable
	s.OverflowDropped += o.OverflowDropped
}

// SimNetwork is an in-process network of named endpoints running in made-up
// time. Datagrams cross one-way links set up with SetDefaultLink, SetLink
// and SetPath, and arrive when Advance moves the network's clock past their
// delivery time; a datagram due at once (on a perfect link) is delivered
// during Send. Nothing sleeps and no goroutine is started.
//
// Every random choice (loss, jitter, duplication, reordering) comes from a
// generator per directed link, seeded from the network's seed and the two
// endpoint names, so a run is fully determined by the seed and the order of
// calls, and traffic on one link does not change the fate of another's.
//
// A SimNetwork and its Conns are safe for concurrent use; made-up time is
// only advanced by Advance.
type SimNetwork struct {
	mu        sync.Mutex
	seed      int64
	start     time.Time
	elapsed   time.Duration // now, as time since start
	seq       uint64        // tie-break of equal delivery times: send order
	def       LinkConfig
	links     map[simLinkKey]*simLink
	eps       map[string]*SimConn
	blackouts map[string][]simWindow
	queue     simQueue
	free      [][]byte
	gone      map[string]*SimStats // stats of closed endpoints, by name
	epGen     uint64               // bumped whenever eps changes: routes cached before are stale
}

// simRoute is a sender's cached resolution of a destination (see
// SimConn.routes).
type simRoute struct {
	dst  *SimConn
	link *simLink
}

type simLinkKey struct{ from, to string }

type simLink struct {
	cfg       LinkConfig
	explicit  bool
	rng       *rand.Rand
	busyUntil time.Duration
}

type simWindow struct{ from, to time.Duration }

// NewSimNetwork returns an empty network whose clock reads start and whose
// random choices all derive from seed. Its links are perfect until
// configured.
func NewSimNetwork(seed int64, start time.Time) *SimNetwork {
	return &SimNetwork{
		seed:      seed,
		start:     start,
		links:     make(map[simLinkKey]*simLink),
		eps:       make(map[string]*SimConn),
		blackouts: make(map[string][]simWindow),
		gone:      make(map[string]*SimStats),
	}
}

// NewLoopback returns a SimNetwork with perfect links, for playing in one
// process in real time: every datagram is delivered during its Send, so
// nobody needs to call Advance. (Configure a link and its datagrams wait
// for Advance like on any SimNetwork.)
func NewLoopback() *SimNetwork {
	return NewSimNetwork(0, time.Time{})
}

// Now returns the network's made-up time. A SimNetwork is a Clock.
func (n *SimNetwork) Now() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.start.Add(n.elapsed)
}

// Listen opens an endpoint named name that may exchange datagrams with any
// endpoint of the network (a server). Its LocalAddr is "sim:"+name and its
// RemoteAddr is "". A name is free again once its endpoint is closed.
func (n *SimNetwork) Listen(name string) (*SimConn, error) {
	return n.open(name, "")
}

// Dial opens an endpoint named name that talks only to the endpoint named
// server (a client). The server need not be listening yet: until it is,
// datagrams to it are dropped and counted as Unroutable.
func (n *SimNetwork) Dial(name, server string) (*SimConn, error) {
	if server == "" {
		return nil, fmt.Errorf("transport: sim dial %q: empty server name: %w", name, ErrUnknownPeer)
	}
	return n.open(name, server)
}

func (n *SimNetwork) open(name, remote string) (*SimConn, error) {
	if name == "" {
		return nil, fmt.Errorf("transport: sim endpoint needs a name: %w", ErrBadConfig)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.eps[name]; ok {
		return nil, fmt.Errorf("transport: sim endpoint %q: %w", name, ErrAddrInUse)
	}
	c := &SimConn{
		net:   n,
		name:  name,
		addr:  Addr(SimPrefix + name),
		ready: make(chan struct{}, 1),
	}
	if remote != "" {
		c.remote = Addr(SimPrefix + remote)
		c.remoteName = remote
	}
	n.eps[name] = c
	n.epGen++
	return c, nil
}

// SetDefaultLink sets how every link not configured by SetLink or SetPath
// behaves, from the next datagram on.
func (n *SimNetwork) SetDefaultLink(cfg LinkConfig) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.def = cfg
}

// SetLink sets how the one-way link from the endpoint named from to the one
// named to behaves, from the next datagram on. The endpoints need not exist
// yet.
func (n *SimNetwork) SetLink(from, to string, cfg LinkConfig) {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.link(from, to)
	l.cfg = cfg
	l.explicit = true
}

// SetPath sets both one-way links between the endpoints named a and b.
func (n *SimNetwork) SetPath(a, b string, cfg LinkConfig) {
	n.SetLink(a, b, cfg)
	n.SetLink(b, a, cfg)
}

// Blackout makes the endpoint named name hear and say nothing from from
// (inclusive) to to (exclusive): its datagrams sent in that window, and
// datagrams due to arrive at it in that window, are dropped. Windows add up.
func (n *SimNetwork) Blackout(name string, from, to time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.blackouts[name] = append(n.blackouts[name], simWindow{from.Sub(n.start), to.Sub(n.start)})
}

// Advance moves the network's clock to to (never backwards) and delivers
// every datagram due by then, in order of delivery time, ties in order of
// sending.
func (n *SimNetwork) Advance(to time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if d := to.Sub(n.start); d > n.elapsed {
		n.elapsed = d
	}
	for len(n.queue) > 0 && n.queue[0].at <= n.elapsed {
		n.deliver(n.queue.pop())
	}
}

// NextDelivery returns when the earliest datagram still in flight is due,
// so a driver can jump the clock there; ok is false when nothing is in
// flight.
func (n *SimNetwork) NextDelivery() (at time.Time, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.queue) == 0 {
		return time.Time{}, false
	}
	return n.start.Add(n.queue[0].at), true
}

// InFlight returns how many datagrams are on their way.
func (n *SimNetwork) InFlight() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.queue)
}

// Stats returns the counters of the endpoint named name: of the open one,
// or else of the last closed one by that name.
func (n *SimNetwork) Stats(name string) (SimStats, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if c, ok := n.eps[name]; ok {
		return c.stats, true
	}
	if s, ok := n.gone[name]; ok {
		return *s, true
	}
	return SimStats{}, false
}

// TotalStats sums the counters of every endpoint ever opened.
func (n *SimNetwork) TotalStats() SimStats {
	n.mu.Lock()
	defer n.mu.Unlock()
	var t SimStats
	for _, c := range n.eps {
		t.add(c.stats)
	}
	for _, s := range n.gone {
		t.add(*s)
	}
	return t
}

// link returns the state of the link from→to, creating it. Callers hold mu.
func (n *SimNetwork) link(from, to string) *simLink {
	k := simLinkKey{from, to}
	l := n.links[k]
	if l == nil {
		l = &simLink{rng: rand.New(rand.NewPCG(uint64(n.seed), linkSeed(from, to)))}
		n.links[k] = l
	}
	return l
}

// linkSeed is FNV-1a of "from\x00to".
func linkSeed(from, to string) uint64 {
	h := uint64(14695981039346656037)
	for _, s := range [...]string{from, "\x00", to} {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
	}
	return h
}

// blackedOut reports whether name is blacked out at t. Callers hold mu.
func (n *SimNetwork) blackedOut(name string, t time.Duration) bool {
	for _, w := range n.blackouts[name] {
		if t >= w.from && t < w.to {
			return true
		}
	}
	return false
}

// send routes one datagram from c to the endpoint dstName (addressed as
// to), and caches the route in c. Callers hold mu.
func (n *SimNetwork) send(c *SimConn, to Addr, dstName string, p []byte) {
	c.stats.SentDatagrams++
	c.stats.SentBytes += uint64(len(p))
	if n.blackedOut(c.name, n.elapsed) {
		c.stats.BlackoutDropped++
		return
	}
	dst := n.eps[dstName]
	if dst == nil {
		c.stats.Unroutable++
		return
	}
	l := n.link(c.name, dstName)
	if c.routes == nil || c.routesGen != n.epGen {
		// Endpoints opened or closed since: every cached route is stale.
		clear(c.routes)
		if c.routes == nil {
			c.routes = make(map[Addr]simRoute)
		}
		c.routesGen = n.epGen
	}
	c.routes[to] = simRoute{dst: dst, link: l}
	n.transmit(c, dst, l, p)
}

// sendRouted is send over a route cached in c. Callers hold mu and have
// checked the route is current.
func (n *SimNetwork) sendRouted(c *SimConn, r simRoute, p []byte) {
	c.stats.SentDatagrams++
	c.stats.SentBytes += uint64(len(p))
	if n.blackedOut(c.name, n.elapsed) {
		c.stats.BlackoutDropped++
		return
	}
	n.transmit(c, r.dst, r.link, p)
}

// transmit applies link l's impairments to one datagram from c to dst.
// Callers hold mu.
func (n *SimNetwork) transmit(c *SimConn, dst *SimConn, l *simLink, p []byte) {
	cfg := &n.def
	if l.explicit {
		cfg = &l.cfg
	}
	// Always six draws per datagram, so that turning one impairment on
	// does not change which datagrams another one hits.
	uLoss, uDup := l.rng.Float64(), l.rng.Float64()
	uJit, uReo := l.rng.Float64(), l.rng.Float64()
	uJit2, uReo2 := l.rng.Float64(), l.rng.Float64()

	depart := n.elapsed
	if cfg.BytesPerSecond > 0 {
		start := max(n.elapsed, l.busyUntil)
		if cfg.QueueLimit > 0 && start-n.elapsed > cfg.QueueLimit {
			c.stats.QueueDropped++
			return
		}
		tx := time.Duration(int64(len(p)) * int64(time.Second) / cfg.BytesPerSecond)
		l.busyUntil = start + tx
		depart = l.busyUntil
	}
	if uLoss < cfg.Loss {
		c.stats.Lost++
		return
	}
	n.schedule(c.addr, dst, depart+cfg.delay(uJit, uReo), p)
	if uDup < cfg.Duplicate {
		c.stats.Duplicated++
		n.schedule(c.addr, dst, depart+cfg.delay(uJit2, uReo2), p)
	}
}

// delay is the link delay given two uniform draws in [0, 1).
func (cfg *LinkConfig) delay(uJit, uReo float64) time.Duration {
	d := cfg.Latency
	if cfg.Jitter > 0 {
		d += time.Duration((2*uJit - 1) * float64(cfg.Jitter))
	}
	if uReo < cfg.Reorder {
		if cfg.ReorderDelay > 0 {
			d += cfg.ReorderDelay
		} else {
			d += 10*time.Millisecond + 2*cfg.Jitter
		}
	}
	return max(d, 0)
}

// schedule puts a copy of p in flight to dst, or delivers it now if it is
// already due. Callers hold mu.
func (n *SimNetwork) schedule(from Addr, dst *SimConn, at time.Duration, p []byte) {
	buf := n.getBuf()
	buf = append(buf, p...)
	n.seq++
	pkt := simPacket{at: at, seq: n.seq, to: dst, from: from, buf: buf}
	if at <= n.elapsed {
		n.deliver(pkt)
		return
	}
	n.queue.push(pkt)
}

// deliver puts pkt in its endpoint's inbox. Callers hold mu.
func (n *SimNetwork) deliver(pkt simPacket) {
	dst := pkt.to
	switch {
	case dst.closed:
		n.putBuf(pkt.buf)
		return
	case n.blackedOut(dst.name, pkt.at):
		dst.stats.BlackoutDropped++
		n.putBuf(pkt.buf)
		return
	case dst.inbox.len() >= simInboxLimit:
		dst.stats.OverflowDropped++
		n.putBuf(pkt.buf)
		return
	}
	dst.stats.ReceivedDatagrams++
	dst.stats.ReceivedBytes += uint64(len(pkt.buf))
	dst.inbox.push(pkt)
	select {
	case dst.ready <- struct{}{}:
	default:
	}
}

func (n *SimNetwork) getBuf() []byte {
	if k := len(n.free); k > 0 {
		b := n.free[k-1]
		n.free = n.free[:k-1]
		return b[:0]
	}
	return make([]byte, 0, MaxDatagram)
}

func (n *SimNetwork) putBuf(b []byte) {
	if len(n.free) < simFreeLimit && cap(b) >= MaxDatagram {
		n.free = append(n.free, b)
	}
}

// simName returns the endpoint name inside a sim address.
func simName(a Addr) (string, bool) {
	s, ok := strings.CutPrefix(string(a), SimPrefix)
	return s, ok && s != ""
}
