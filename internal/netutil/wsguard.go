package netutil

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"syscall"
)

// ErrFrameTooLarge indicates a WebSocket frame whose header declares more
// payload than the reader's limit: the connection is refused at once,
// without waiting for the bytes that would never fit.
var ErrFrameTooLarge = errors.New("netutil: websocket frame larger than the read limit")

// ErrNoRawConn indicates a connection with no raw connection beneath it
// (not a TCP or Unix socket).
var ErrNoRawConn = errors.New("netutil: no raw connection beneath")

// GuardWebSocket wraps w for a WebSocket upgrade (coder/websocket's Accept
// hijacks it): every frame header the client sends is read as it arrives,
// and one that declares a payload over limit bytes fails the connection's
// reads with ErrFrameTooLarge, after calling tooLarge once, or, if it is
// nil, after writing the client a close frame with status 1009 (message
// too big).
// WebSocket libraries check a message's size only as its bytes arrive, so
// a header declaring 2⁶³ bytes would otherwise hold the connection until
// an idle timeout.
func GuardWebSocket(w http.ResponseWriter, limit int64, tooLarge func()) http.ResponseWriter {
	return &guardWriter{ResponseWriter: w, limit: limit, tooLarge: tooLarge}
}

type guardWriter struct {
	http.ResponseWriter
	limit    int64
	tooLarge func()
}

// Hijack hands out the connection with its reads going through the frame
// guard, including what the server had already buffered.
func (g *guardWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := g.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("netutil: response writer cannot be hijacked")
	}
	c, brw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	buffered, _ := brw.Reader.Peek(brw.Reader.Buffered())
	gc := &guardConn{Conn: c, pre: append([]byte(nil), buffered...),
		guard: FrameGuard{Limit: g.limit}, tooLarge: g.tooLarge}
	return gc, bufio.NewReadWriter(bufio.NewReader(gc), brw.Writer), nil
}

type guardConn struct {
	net.Conn
	pre      []byte
	guard    FrameGuard
	tooLarge func()
	once     sync.Once
	err      error
}

func (c *guardConn) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	var n int
	var err error
	if len(c.pre) > 0 {
		n = copy(p, c.pre)
		c.pre = c.pre[n:]
	} else {
		n, err = c.Conn.Read(p)
	}
	if gerr := c.guard.Scan(p[:n]); gerr != nil {
		c.err = gerr
		c.once.Do(func() {
			if c.tooLarge != nil {
				c.tooLarge()
				return
			}
			// A close frame: FIN and opcode 8, status 1009, a reason.
			reason := "message too big"
			f := []byte{0x88, byte(2 + len(reason)), 1009 >> 8, 1009 & 0xff}
			_, _ = c.Conn.Write(append(f, reason...))
		})
		return 0, gerr
	}
	return n, err
}

// FrameGuard follows the frames of a client's WebSocket byte stream (RFC
// 6455 section 5.2) and checks each header's payload length against
// Limit. The zero state expects a frame header.
type FrameGuard struct {
	// Limit is the largest payload a frame may declare.
	Limit int64

	hdr  [14]byte
	have int    // header bytes held
	left uint64 // payload bytes still to skip
}

// Scan reads b, the next bytes of the stream; it returns ErrFrameTooLarge
// (and keeps returning it) once a header declares more than Limit.
func (g *FrameGuard) Scan(b []byte) error {
	for len(b) > 0 {
		if g.have < 0 {
			return fmt.Errorf("%w: over %d bytes", ErrFrameTooLarge, g.Limit)
		}
		if g.left > 0 {
			k := uint64(len(b))
			if k > g.left {
				k = g.left
			}
			g.left -= k
			b = b[k:]
			continue
		}
		g.hdr[g.have] = b[0]
		g.have++
		b = b[1:]
		need := 2
		if g.have >= 2 {
			switch g.hdr[1] & 0x7f {
			case 126:
				need += 2
			case 127:
				need += 8
			}
			if g.hdr[1]&0x80 != 0 {
				need += 4
			}
		}
		if g.have < need {
			continue
		}
		var n uint64
		switch g.hdr[1] & 0x7f {
		case 126:
			n = uint64(binary.BigEndian.Uint16(g.hdr[2:]))
		case 127:
			n = binary.BigEndian.Uint64(g.hdr[2:])
		default:
			n = uint64(g.hdr[1] & 0x7f)
		}
		if n > uint64(max(g.Limit, 0)) {
			g.have = -1
			return fmt.Errorf("%w: %d bytes declared, over %d", ErrFrameTooLarge, n, g.Limit)
		}
		g.have, g.left = 0, n
	}
	return nil
}

// SyscallConn returns the raw connection beneath the guard, for a writer
// that must not block (relay/webdoom's direct sends); it fails when the
// guarded connection has none.
func (c *guardConn) SyscallConn() (syscall.RawConn, error) { return rawConnOf(c.Conn) }
