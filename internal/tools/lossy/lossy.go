// Package lossy is a small userspace UDP forwarder that loses, delays and
// jitters datagrams: the lossy path of `rewind-bench soak`, where kernel
// netem is not available (docs/benchmarks.md, "Soak").
//
// A Forwarder listens on one UDP address and forwards every datagram a
// client sends there to one target (a server), from a socket of its own
// per client (a flow), so that the server sees each client as a distinct
// peer and its answers find their way back. Each datagram, in each
// direction independently, is dropped with probability Config.Loss, and
// the rest are held Config.Delay plus a uniform 0..Config.Jitter before
// they go on (so jitter may reorder them, as a real path does). A flow
// silent for Config.IdleTimeout is forgotten and its socket closed: a
// client that went away costs nothing for long.
//
// It only ever sends to the target and to the clients that wrote to it:
// listen and target addresses on loopback or on a veth pair keep every
// datagram on the machine.
package lossy

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed indicates a Forwarder that was closed.
var ErrClosed = errors.New("lossy: forwarder closed")

// Config configures a Forwarder. The zero value forwards every datagram
// at once.
type Config struct {
	// Loss is the fraction of datagrams dropped, 0..1, in each direction
	// independently (default 0).
	Loss float64
	// Delay is how long every datagram is held before it goes on, one
	// way (default 0).
	Delay time.Duration
	// Jitter adds a uniform random 0..Jitter to each datagram's delay
	// (default 0).
	Jitter time.Duration
	// Seed seeds the random choices of loss and jitter (default 0: a
	// fixed seed; the order in which concurrent flows draw still varies).
	Seed uint64
	// IdleTimeout forgets a flow that neither side used for this long
	// (default 30 s).
	IdleTimeout time.Duration
	// MaxFlows caps the flows at once; a new client beyond it is dropped
	// (default 4096).
	MaxFlows int
}

func (c Config) withDefaults() Config {
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 30 * time.Second
	}
	if c.MaxFlows <= 0 {
		c.MaxFlows = 4096
	}
	c.Loss = min(max(c.Loss, 0), 1)
	c.Delay = max(c.Delay, 0)
	c.Jitter = max(c.Jitter, 0)
	return c
}

// Stats counts what a Forwarder did. Up is client to target, Down target
// to client.
type Stats struct {
	// Up and Down count datagrams forwarded; DroppedUp and DroppedDown
	// those dropped as loss.
	Up, Down, DroppedUp, DroppedDown uint64
	// Flows is the number of flows now; FlowsOpened and FlowsExpired
	// count those opened and forgotten; Refused counts datagrams of new
	// clients dropped at MaxFlows.
	Flows                     int
	FlowsOpened, FlowsExpired uint64
	Refused                   uint64
}

// Forwarder is a lossy UDP forwarder (see the package doc). Its methods
// are safe for concurrent use.
type Forwarder struct {
	cfg    Config
	ln     *net.UDPConn
	target *net.UDPAddr

	mu      sync.Mutex
	flows   map[netip.AddrPort]*flow
	rng     *rand.Rand
	line    delayLine
	closed  bool
	wake    chan struct{}
	done    chan struct{}
	wg      sync.WaitGroup
	opened  uint64
	expired uint64

	up, down, dropUp, dropDown, refused atomic.Uint64
}

// flow is one client's path: its address and the socket that speaks for
// it to the target.
type flow struct {
	client netip.AddrPort
	conn   *net.UDPConn
	last   atomic.Int64 // unix nanos of the last datagram either way
}

// Listen opens a Forwarder on listen ("127.0.0.1:0" picks a port; Addr
// says which) that forwards to target, and starts it; Close stops it.
func Listen(listen, target string, cfg Config) (*Forwarder, error) {
	la, err := net.ResolveUDPAddr("udp", listen)
	if err != nil {
		return nil, fmt.Errorf("lossy: listen address: %w", err)
	}
	ta, err := net.ResolveUDPAddr("udp", target)
	if err != nil {
		return nil, fmt.Errorf("lossy: target address: %w", err)
	}
	ln, err := net.ListenUDP("udp", la)
	if err != nil {
		return nil, fmt.Errorf("lossy: %w", err)
	}
	cfg = cfg.withDefaults()
	f := &Forwarder{
		cfg: cfg, ln: ln, target: ta,
		flows: make(map[netip.AddrPort]*flow),
		rng:   rand.New(rand.NewPCG(cfg.Seed, 0x6c6f737379)),
		wake:  make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
	f.wg.Add(3)
	go f.readClients()
	go f.sendDue()
	go f.expire()
	return f, nil
}

// Addr returns the address the Forwarder listens on.
func (f *Forwarder) Addr() netip.AddrPort { return f.ln.LocalAddr().(*net.UDPAddr).AddrPort() }

// Stats returns the Forwarder's counters.
func (f *Forwarder) Stats() Stats {
	f.mu.Lock()
	n, opened, expired := len(f.flows), f.opened, f.expired
	f.mu.Unlock()
	return Stats{
		Up: f.up.Load(), Down: f.down.Load(), DroppedUp: f.dropUp.Load(), DroppedDown: f.dropDown.Load(),
		Flows: n, FlowsOpened: opened, FlowsExpired: expired, Refused: f.refused.Load(),
	}
}

// Run waits until ctx ends, then closes the Forwarder.
func (f *Forwarder) Run(ctx context.Context) error {
	select {
	case <-ctx.Done():
	case <-f.done:
	}
	return f.Close()
}

// Close stops the Forwarder: its sockets close, held datagrams are
// dropped, and its goroutines have ended when it returns.
func (f *Forwarder) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	close(f.done)
	for _, fl := range f.flows {
		fl.conn.Close()
	}
	f.mu.Unlock()
	err := f.ln.Close()
	f.wg.Wait()
	return err
}

// readClients reads the clients' datagrams and passes them up, opening a
// flow for a new client.
func (f *Forwarder) readClients() {
	defer f.wg.Done()
	buf := make([]byte, 64<<10)
	for {
		n, from, err := f.ln.ReadFromUDPAddrPort(buf)
		if err != nil {
			if f.isClosed() {
				return
			}
			continue // a transient error (an ICMP echo of a closed client)
		}
		fl := f.flowOf(from)
		if fl == nil {
			continue
		}
		fl.last.Store(time.Now().UnixNano())
		f.pass(true, fl, buf[:n])
	}
}

// flowOf returns from's flow, opening it (and its reader) if new; nil
// when closed, at MaxFlows, or when its socket cannot be opened.
func (f *Forwarder) flowOf(from netip.AddrPort) *flow {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fl := f.flows[from]; fl != nil || f.closed {
		return fl
	}
	if len(f.flows) >= f.cfg.MaxFlows {
		f.refused.Add(1)
		return nil
	}
	conn, err := net.DialUDP("udp", nil, f.target)
	if err != nil {
		f.refused.Add(1)
		return nil
	}
	fl := &flow{client: from, conn: conn}
	f.flows[from] = fl
	f.opened++
	f.wg.Add(1)
	go f.readTarget(fl)
	return fl
}

// readTarget reads the target's datagrams to fl's client and passes them
// down, until fl's socket is closed.
func (f *Forwarder) readTarget(fl *flow) {
	defer f.wg.Done()
	buf := make([]byte, 64<<10)
	for {
		n, err := fl.conn.Read(buf)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // ECONNREFUSED: the target was not there for a moment
		}
		fl.last.Store(time.Now().UnixNano())
		f.pass(false, fl, buf[:n])
	}
}

// pass drops b (a datagram going up to the target or down to fl's
// client) with probability Loss, or sends a copy after its delay.
func (f *Forwarder) pass(up bool, fl *flow, b []byte) {
	f.mu.Lock()
	lost := f.cfg.Loss > 0 && f.rng.Float64() < f.cfg.Loss
	var d time.Duration
	if !lost {
		d = f.cfg.Delay
		if f.cfg.Jitter > 0 {
			d += time.Duration(f.rng.Int64N(int64(f.cfg.Jitter) + 1))
		}
	}
	if lost || d <= 0 || f.closed {
		f.mu.Unlock()
		if lost {
			f.count(up, true)
			return
		}
		f.send(up, fl, b)
		return
	}
	heap.Push(&f.line, held{at: time.Now().Add(d), up: up, fl: fl, b: append([]byte(nil), b...), seq: f.line.seq})
	f.line.seq++
	first := f.line.items[0].seq == f.line.seq-1
	f.mu.Unlock()
	if first {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
}

// send writes b up to the target through fl, or down to fl's client.
func (f *Forwarder) send(up bool, fl *flow, b []byte) {
	var err error
	if up {
		_, err = fl.conn.Write(b)
	} else {
		_, err = f.ln.WriteToUDPAddrPort(b, fl.client)
	}
	if err == nil {
		f.count(up, false)
	}
}

func (f *Forwarder) count(up, dropped bool) {
	switch {
	case up && dropped:
		f.dropUp.Add(1)
	case dropped:
		f.dropDown.Add(1)
	case up:
		f.up.Add(1)
	default:
		f.down.Add(1)
	}
}

// sendDue sends the held datagrams as their time comes.
func (f *Forwarder) sendDue() {
	defer f.wg.Done()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		f.mu.Lock()
		var due []held
		now := time.Now()
		for len(f.line.items) > 0 && !f.line.items[0].at.After(now) {
			due = append(due, heap.Pop(&f.line).(held))
		}
		wait := time.Hour
		if len(f.line.items) > 0 {
			wait = f.line.items[0].at.Sub(now)
		}
		f.mu.Unlock()
		for _, h := range due {
			f.send(h.up, h.fl, h.b)
		}
		t.Reset(wait)
		select {
		case <-f.done:
			return
		case <-f.wake:
		case <-t.C:
		}
	}
}

// expire forgets the flows idle for IdleTimeout, every quarter of it.
func (f *Forwarder) expire() {
	defer f.wg.Done()
	t := time.NewTicker(f.cfg.IdleTimeout / 4)
	defer t.Stop()
	for {
		select {
		case <-f.done:
			return
		case now := <-t.C:
			f.mu.Lock()
			for a, fl := range f.flows {
				if now.UnixNano()-fl.last.Load() > int64(f.cfg.IdleTimeout) {
					fl.conn.Close()
					delete(f.flows, a)
					f.expired++
				}
			}
			f.mu.Unlock()
		}
	}
}

func (f *Forwarder) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// held is a datagram waiting for its time.
type held struct {
	at  time.Time
	seq uint64 // order of arrival, to keep equal times in order
	up  bool
	fl  *flow
	b   []byte
}

// delayLine is the held datagrams, a min-heap by time.
type delayLine struct {
	items []held
	seq   uint64
}

func (l *delayLine) Len() int { return len(l.items) }
func (l *delayLine) Less(i, j int) bool {
	a, b := l.items[i], l.items[j]
	return a.at.Before(b.at) || a.at.Equal(b.at) && a.seq < b.seq
}
func (l *delayLine) Swap(i, j int) { l.items[i], l.items[j] = l.items[j], l.items[i] }
func (l *delayLine) Push(x any)    { l.items = append(l.items, x.(held)) }
func (l *delayLine) Pop() any {
	n := len(l.items) - 1
	x := l.items[n]
	l.items[n] = held{}
	l.items = l.items[:n]
	return x
}
