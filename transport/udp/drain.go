package udp

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// udpDrainBackstop is how long a drained server's socket may go unread
// before its own goroutine drains it: while no owner drains (before a
// host runs, after it stops, a host with no room), handshakes and
// datagrams are still answered, this late at most. Its goroutine wakes
// about this often while the owner drains (a few per second).
const udpDrainBackstop = 100 * time.Millisecond

// udpDrainMax is the most datagrams one Drain reads (16 batches): the
// rest wait for the next.
const udpDrainMax = 16 * udpReadBatch

// udpDrain is a Server's state for Config.Drained.
type udpDrain struct {
	on     bool         // the socket is a drainSock: Drain reads it
	mu     sync.Mutex   // held while draining: one reader at a time, in order
	r      *udpReader   // guarded by mu
	out    []byte       // guarded by mu: replies' scratch buffer
	last   atomic.Int64 // unix nanos (the Clock's) of the last drain
	stop   chan struct{}
	closed sync.Once
	// stamp is the kernel's arrival stamp of the datagram being handled
	// (unix nanoseconds, 0 if none), written and read by the goroutine
	// handling a batch.
	stamp int64
}

var _ transport.Drainer = (*Server)(nil)

// listenSocket is the socket a Server reads: conn, or with cfg.Drained
// (on Linux) the same socket out of the runtime's poller.
func listenSocket(conn *net.UDPConn, cfg Config) (udpSocket, error) {
	if !cfg.Drained {
		return conn, nil
	}
	sock, err := newDrainSock(conn)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if sock == nil { // not on this platform
		return conn, nil
	}
	return sock, nil
}

// arrival is when the datagram being handled arrived, on the Clock that
// says it is now: now less how long it waited in the socket (its kernel
// stamp to the wall clock, read at once), or now without a stamp.
func (s *Server) arrival(now time.Time) time.Time {
	if s.drain.stamp == 0 {
		return now
	}
	waited := min(max(time.Now().UnixNano()-s.drain.stamp, 0), int64(time.Second))
	return s.cfg.Clock.Now().Add(-time.Duration(waited))
}

// startReading starts the goroutine that reads the socket: the reader,
// or for a drained socket the backstop (drainLoop).
func (s *Server) startReading() {
	if _, ok := s.conn.(*net.UDPConn); ok {
		go s.readLoop()
		return
	}
	s.drain.on = true
	s.drain.r = newUDPReader(s.conn, udpReadBatch)
	s.drain.out = make([]byte, 0, 128)
	s.drain.stop = make(chan struct{})
	s.drain.last.Store(s.cfg.Clock.Now().UnixNano())
	go s.drainLoop()
}

// stopReading ends drainLoop (Close; a reader ends when the socket
// closes).
func (s *Server) stopReading() {
	if s.drain.on {
		s.drain.closed.Do(func() { close(s.drain.stop) })
	}
}

// Draining implements transport.Drainer: whether the socket waits for
// Drain (Config.Drained, on Linux).
func (s *Server) Draining() bool { return s.drain.on }

// Drain implements transport.Drainer: it reads the datagrams waiting
// in the socket (up to 1,024), without waiting for more, and handles
// each as the reader would (handshakes answered, session datagrams to
// the Handler or queued for Recv), in the order they arrived; the
// Handler gets each one's arrival time as the kernel stamped it. It
// returns how many it read: 0 without Config.Drained, or while another
// goroutine drains (what it reads includes what this call would have).
func (s *Server) Drain() int {
	d := &s.drain
	if !d.on || !d.mu.TryLock() {
		return 0
	}
	defer d.mu.Unlock()
	d.last.Store(s.cfg.Clock.Now().UnixNano())
	total := 0
	for total < udpDrainMax {
		n, err := d.r.read()
		if err != nil || n == 0 {
			break // nothing waiting, or the socket closed
		}
		d.out = s.handleBatch(d.r, n, d.out)
		total += n
		if n < d.r.batch {
			break // the socket had no more
		}
	}
	if total == 0 {
		// Idle sessions still end while no datagram comes (handle
		// sweeps as it goes).
		s.sweep(s.cfg.Clock.Now())
	}
	return total
}

// drainLoop is a drained server's backstop: it drains the socket itself
// whenever nobody has for udpDrainBackstop, until stopReading.
func (s *Server) drainLoop() {
	defer close(s.done)
	t := time.NewTimer(udpDrainBackstop)
	defer t.Stop()
	for {
		select {
		case <-s.drain.stop:
			return
		case <-t.C:
		}
		since := time.Duration(s.cfg.Clock.Now().UnixNano() - s.drain.last.Load())
		if since >= udpDrainBackstop {
			s.Drain()
			since = 0
		}
		t.Reset(udpDrainBackstop - since)
	}
}
