package webdoom

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// The seal path writes a bundle straight to each player's socket, on the
// goroutine that sealed it (relay/webdoom's Server.dispatch): no hand-off
// to a sender goroutine, whose wake-up cost the seal most of its latency
// (docs/benchmarks.md, "WebDoom relay"). So that such a write can never
// block the relay, a game socket's connection is an nbConn: a write goes to
// the kernel without waiting (a non-blocking write(2) on the socket);
// whatever the kernel does not take at once waits in a bounded backlog
// that a flusher goroutine writes, bound by the connection's own write
// deadline, while later writes queue behind it. A backlog over its bound
// fails the write (ErrSlowConsumer): the connection is dropped as slow.

// errSlowConsumer indicates a connection whose backlog of unwritten bytes
// passed its bound.
var errSlowConsumer = errors.New("webdoom: slow consumer (write backlog full)")

// nbConn is a connection whose writes never block (see above).
type nbConn struct {
	net.Conn                 // the hijacked connection (reads, close)
	raw      syscall.RawConn // nil: no raw socket, writes block as usual
	max      int             // the backlog's bound in bytes

	mu       sync.Mutex
	backlog  []byte
	flushing bool          // a flusher owns the connection's writes
	drained  chan struct{} // closed when the flushing in progress ends
	err      error         // the flusher's write error: every write fails
	deadline bool          // a write deadline may be set (cleared before a raw write)
}

// newNBConn wraps c, whose writes then never block when it has a raw
// socket beneath (a TCP connection, through netutil's wrappers).
func newNBConn(c net.Conn, max int) *nbConn {
	nb := &nbConn{Conn: c, max: max, deadline: true}
	if sc, ok := c.(syscall.Conn); ok && rawWrites {
		nb.raw, _ = sc.SyscallConn()
	}
	return nb
}

// Write writes p without blocking: to the socket if the backlog is empty
// and the kernel takes it, else into the backlog.
func (c *nbConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	if c.raw == nil {
		return c.Conn.Write(p)
	}
	n := len(p)
	if !c.flushing {
		if c.deadline {
			c.Conn.SetWriteDeadline(time.Time{}) // one left by the handshake or the flusher would fail the raw write
			c.deadline = false
		}
		k, err := c.writeRaw(p)
		if err != nil {
			c.err = err
			return k, err
		}
		if p = p[k:]; len(p) == 0 {
			return n, nil
		}
		c.flushing, c.drained, c.deadline = true, make(chan struct{}), true
		go c.flush()
	}
	if len(c.backlog)+len(p) > c.max {
		c.err = errSlowConsumer
		return 0, c.err
	}
	c.backlog = append(c.backlog, p...)
	return n, nil
}

// writeRaw writes what the kernel takes of p at once.
func (c *nbConn) writeRaw(p []byte) (int, error) {
	var n int
	var werr error
	err := c.raw.Write(func(fd uintptr) bool {
		for len(p) > 0 {
			k, err := rawWrite(fd, p)
			if err == syscall.EINTR {
				continue
			}
			if k > 0 {
				n, p = n+k, p[k:]
				continue
			}
			if err != syscall.EAGAIN {
				werr = err
			}
			break
		}
		return true // never wait for the socket to be writable
	})
	if err == nil {
		err = werr
	}
	return n, err
}

// flush writes the backlog, blocking (the connection's write deadline
// bounds each write), until it is empty or a write fails.
func (c *nbConn) flush() {
	for {
		c.mu.Lock()
		b := c.backlog
		c.backlog = nil
		if len(b) == 0 || c.err != nil {
			c.flushing = false
			close(c.drained)
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		if _, err := c.Conn.Write(b); err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			c.Conn.Close()
		}
	}
}

// wait returns once the backlog is written (at once when there is none),
// or fails when ctx ends first or the flusher failed.
func (c *nbConn) wait(ctx context.Context) error {
	c.mu.Lock()
	flushing, drained, err := c.flushing, c.drained, c.err
	c.mu.Unlock()
	if err != nil || !flushing {
		return err
	}
	select {
	case <-drained:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// nbHijacker hands coder/websocket's Accept an nbConn, and a buffered
// writer over it, when it hijacks the connection.
type nbHijacker struct {
	http.ResponseWriter
	max int
	nb  *nbConn // set by Hijack
}

// Hijack hijacks the connection beneath and wraps it.
func (h *nbHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := h.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("webdoom: response writer cannot be hijacked")
	}
	c, brw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	if err := brw.Writer.Flush(); err != nil {
		c.Close()
		return nil, nil, err
	}
	h.nb = newNBConn(c, h.max)
	return h.nb, bufio.NewReadWriter(brw.Reader, bufio.NewWriterSize(h.nb, 4096)), nil
}
