package netutil

import (
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// HTTPLimits are the limits every HTTP server of rewind (relay, metrics,
// demo, WebDoom) applies to its connections. The zero value of a field
// means its default.
type HTTPLimits struct {
	// ReadHeaderTimeout bounds reading a request's header (default 10 s).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included (default
	// 60 s). WebSockets are not bound by it once upgraded.
	ReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection waiting for its next
	// request for this long (default 60 s).
	IdleTimeout time.Duration
	// WriteStall closes a connection whose writes made no progress for
	// this long (default 30 s): every 64 KiB written moves the deadline,
	// so a slow but moving download of any size goes through, while a
	// reader that stopped reading is cut.
	WriteStall time.Duration
	// ConnsPerIP caps the open connections from one IP address, plain
	// HTTP and upgraded WebSockets alike (default 128: several browser
	// tabs and their WebSockets fit). Beyond it, a new connection is
	// closed as soon as it is accepted.
	ConnsPerIP int
}

// WithDefaults returns l with every zero field set to its default.
func (l HTTPLimits) WithDefaults() HTTPLimits {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&l.ReadHeaderTimeout, 10*time.Second)
	def(&l.ReadTimeout, 60*time.Second)
	def(&l.IdleTimeout, 60*time.Second)
	def(&l.WriteStall, 30*time.Second)
	if l.ConnsPerIP <= 0 {
		l.ConnsPerIP = 128
	}
	return l
}

// Server returns an http.Server for h with l's timeouts. Serve it on
// l.Listener(ln) for the per-IP cap and the write-progress bound.
func (l HTTPLimits) Server(h http.Handler) *http.Server {
	l = l.WithDefaults()
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		IdleTimeout:       l.IdleTimeout,
	}
}

// Listener wraps ln: at most ConnsPerIP open connections per IP address
// (more are closed at once), and every write bound by WriteStall.
func (l HTTPLimits) Listener(ln net.Listener) *LimitedListener {
	l = l.WithDefaults()
	return &LimitedListener{Listener: ln, lim: l, open: make(map[string]int)}
}

// LimitedListener is a net.Listener with HTTPLimits' per-IP cap and write
// bound (HTTPLimits.Listener).
type LimitedListener struct {
	net.Listener
	lim HTTPLimits

	mu      sync.Mutex
	open    map[string]int
	refused uint64
}

// Accept returns the next connection within the per-IP cap; connections
// over it are closed and not returned.
func (l *LimitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := hostOf(c.RemoteAddr())
		l.mu.Lock()
		if l.open[ip] >= l.lim.ConnsPerIP {
			l.refused++
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.open[ip]++
		l.mu.Unlock()
		return &limitedConn{Conn: c, l: l, ip: ip}, nil
	}
}

// Stats returns the connections open now and those refused by the cap.
func (l *LimitedListener) Stats() (open int, refused uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.open {
		open += n
	}
	return open, l.refused
}

func hostOf(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// writeChunk is how much one write may carry under one deadline.
const writeChunk = 64 << 10

type limitedConn struct {
	net.Conn
	l    *LimitedListener
	ip   string
	once sync.Once
}

// Write writes p in chunks, each with WriteStall to go through.
func (c *limitedConn) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		end := min(len(p), n+writeChunk)
		if err := c.Conn.SetWriteDeadline(time.Now().Add(c.l.lim.WriteStall)); err != nil {
			return n, err
		}
		k, err := c.Conn.Write(p[n:end])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Close closes the connection and frees its place under the cap.
func (c *limitedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		if c.l.open[c.ip]--; c.l.open[c.ip] <= 0 {
			delete(c.l.open, c.ip)
		}
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// SyscallConn returns the raw connection beneath the cap (its writes then
// skip WriteStall: a caller writing to it must not block).
func (c *limitedConn) SyscallConn() (syscall.RawConn, error) { return rawConnOf(c.Conn) }

// rawConnOf returns c's raw connection, or ErrNoRawConn.
func rawConnOf(c net.Conn) (syscall.RawConn, error) {
	if sc, ok := c.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, ErrNoRawConn
}
