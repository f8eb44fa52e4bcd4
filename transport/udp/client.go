package udp

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// Client is the client side of the UDP transport: one session with one
// server. It implements Conn; Send takes its RemoteAddr. A reader goroutine
// reads the socket into a bounded queue (with Config.Drained, Drain does,
// when its owner calls it); Close says BYE and stops it. Once the server
// says BYE, or is silent for IdleTimeout, Recv and Send fail with
// ErrPeerGone.
type Client struct {
	cfg      Config
	conn     *net.UDPConn // the socket until the handshake ends
	sock     clientSock   // the socket after it: conn, or its drainSock
	drain    *udpReader   // Config.Drained's reader; nil: readLoop reads
	local    transport.Addr
	remote   transport.Addr
	cid, sid uint64
	q        *udpQueue
	stats    udpCounters
	done     chan struct{}
	closed   atomic.Bool
	gone     atomic.Bool  // the server said BYE
	heard    atomic.Int64 // unix nanos of the last frame from the server
	sent     int64        // unix nanos of the last frame sent (Send's goroutine)
	sendBuf  []byte
	// Version 2: the handshake in progress, then the session's keys and
	// the server's proven key.
	noise     *noiseInitiator
	msg1      []byte // the client's handshake message: e
	seal      *udpSealKey
	open      *udpOpenKey
	serverKey PublicKey
}

var _ transport.Conn = (*Client)(nil)

// Dial opens a session with the UDP server at addr ("host:port"): it
// sends HELLO, answers the server's RETRY with the token, and returns once
// WELCOME arrives. It fails with ErrHandshake when no server answers within
// HandshakeTimeout, and with ErrRefused when the server refuses.
func Dial(addr string, cfg Config) (*Client, error) {
	return DialContext(context.Background(), addr, cfg)
}

// DialContext is Dial that also gives up when ctx is done.
func DialContext(ctx context.Context, addr string, cfg Config) (*Client, error) {
	cfg = cfg.WithDefaults()
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("transport: dial udp %s: %w", addr, err)
	}
	var la *net.UDPAddr
	if cfg.LocalAddr != "" {
		if la, err = net.ResolveUDPAddr("udp", cfg.LocalAddr); err != nil {
			return nil, fmt.Errorf("transport: dial udp %s from %s: %w", addr, cfg.LocalAddr, err)
		}
	}
	conn, err := net.DialUDP("udp", la, ua)
	if err != nil {
		return nil, fmt.Errorf("transport: dial udp %s: %w", addr, err)
	}
	if err := setBuffers(conn, cfg); err != nil {
		conn.Close()
		return nil, err
	}
	c := &Client{
		cfg:     cfg,
		conn:    conn,
		local:   transport.Addr(Prefix + unmap(conn.LocalAddr().(*net.UDPAddr).AddrPort()).String()),
		remote:  transport.Addr(Prefix + unmap(conn.RemoteAddr().(*net.UDPAddr).AddrPort()).String()),
		cid:     udpRandomID(),
		q:       newUDPQueue(cfg.QueueLen),
		done:    make(chan struct{}),
		sendBuf: make([]byte, 0, udpMaxFrame),
	}
	if !cfg.Plaintext {
		e, err := ecdh.X25519().GenerateKey(rand.Reader)
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("transport: dial udp %s: %w", addr, err)
		}
		c.noise = newNoiseInitiator(udpPrologue(c.cid), e)
		c.msg1 = c.noise.writeMessage1(nil, nil)
	}
	if err := c.handshake(ctx, addr); err != nil {
		conn.Close()
		return nil, err
	}
	now := cfg.Clock.Now().UnixNano()
	c.heard.Store(now)
	c.sent = now
	if err := c.startReading(); err != nil {
		return nil, fmt.Errorf("transport: dial udp %s: %w", addr, err)
	}
	return c, nil
}

// handshake runs HELLO / RETRY / HELLO+token / WELCOME on the socket
// before the reader goroutine starts. Its timers are real time.
func (c *Client) handshake(ctx context.Context, addr string) error {
	deadline := time.Now().Add(c.cfg.HandshakeTimeout)
	// A done ctx cuts the current wait short, unless the handshake is over.
	var mu sync.Mutex
	over := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			c.conn.SetReadDeadline(time.Unix(1, 0))
		}
	})
	defer func() {
		mu.Lock()
		over = true
		mu.Unlock()
		stop()
	}()
	var token []byte
	buf := make([]byte, 2048)
	var lastErr error
	for {
		wait := time.Now().Add(c.cfg.HandshakeRetry)
		if wait.After(deadline) {
			wait = deadline
		}
		// Under mu, so that a cancellation either shows here or cuts this
		// wait short afterwards.
		mu.Lock()
		err := ctx.Err()
		if err == nil {
			c.conn.SetReadDeadline(wait)
		}
		mu.Unlock()
		if err != nil {
			return fmt.Errorf("transport: dial udp %s: %w", addr, err)
		}
		if c.noise != nil {
			c.sendBuf = appendUDPHelloSealed(c.sendBuf[:0], c.cid, c.msg1, token)
		} else {
			c.sendBuf = appendUDPHello(c.sendBuf[:0], c.cid, token)
		}
		c.stats.wrote(c.conn.Write(c.sendBuf))
		welcomed, err := c.answer(addr, buf, wait, &token, &lastErr)
		if err != nil {
			return err
		}
		if welcomed {
			mu.Lock()
			over = true
			mu.Unlock()
			return c.conn.SetReadDeadline(time.Time{})
		}
		if !time.Now().Before(deadline) {
			if lastErr != nil {
				return fmt.Errorf("transport: dial udp %s: no answer in %v (%v): %w", addr, c.cfg.HandshakeTimeout, lastErr, ErrHandshake)
			}
			return fmt.Errorf("transport: dial udp %s: no answer in %v: %w", addr, c.cfg.HandshakeTimeout, ErrHandshake)
		}
	}
}

// answer reads the server's answer to a HELLO until the read deadline
// (wait): a RETRY's token, for the HELLO to go again at once; a WELCOME
// (welcomed); or a REFUSE (the error). A read error other than the
// deadline (nobody listens yet, say) is kept in lastErr.
func (c *Client) answer(addr string, buf []byte, wait time.Time, token *[]byte, lastErr *error) (welcomed bool, err error) {
	for {
		n, err := c.conn.Read(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return false, nil
			}
			*lastErr = err // e.g. connection refused: nobody listens yet
			if time.Now().Before(wait) {
				continue
			}
			return false, nil
		}
		c.stats.datagramsIn.Add(1)
		c.stats.bytesIn.Add(uint64(n))
		f, err := parseUDPFrame(buf[:n])
		if err != nil {
			c.stats.malformed.Add(1)
			continue
		}
		if f.id != c.cid {
			c.stats.unknownConn.Add(1)
			continue
		}
		if f.typ != udpRefuse && f.version != c.version() {
			c.stats.malformed.Add(1)
			continue
		}
		switch f.typ {
		case udpRetry:
			c.stats.retries.Add(1)
			*token = append((*token)[:0], f.token...)
			return false, nil // answer the RETRY at once
		case udpWelcome:
			if c.noise != nil {
				if err := c.finish(f); err != nil {
					if errors.Is(err, ErrMalformed) { // forged or corrupted: wait on
						c.stats.badToken.Add(1)
						continue
					}
					return false, fmt.Errorf("transport: dial udp %s: %w", addr, err)
				}
			} else {
				c.sid = f.sid
			}
			c.stats.opened.Add(1)
			return true, nil
		case udpRefuse:
			reason := "full"
			if f.reason == udpRefuseVersion {
				reason = "protocol version"
			}
			return false, fmt.Errorf("transport: dial udp %s (%s): %w", addr, reason, ErrRefused)
		default:
			c.stats.malformed.Add(1)
		}
	}
}

// finish reads the server's half of the handshake in a WELCOME of
// version 2: the session id and keys, and the server's key, checked
// against the pinned one and by VerifyServerKey.
func (c *Client) finish(f udpFrame) error {
	// A copy: a forged WELCOME must not spend the handshake's state.
	ini := *c.noise
	rs, payload, send, recv, err := ini.readMessage2(nil, f.noise)
	if err != nil {
		return err
	}
	if len(payload) != 8 || binary.BigEndian.Uint64(payload) == 0 {
		return fmt.Errorf("transport: udp welcome payload of %d bytes: %w", len(payload), ErrMalformed)
	}
	if !c.cfg.ServerKey.IsZero() && rs != c.cfg.ServerKey {
		return fmt.Errorf("server key %s, pinned %s: %w", rs, c.cfg.ServerKey, ErrServerKey)
	}
	if c.cfg.VerifyServerKey != nil {
		if err := c.cfg.VerifyServerKey(rs); err != nil {
			return err
		}
	}
	c.sid = binary.BigEndian.Uint64(payload)
	c.serverKey = rs
	c.seal, c.open = newUDPKeys(send, recv)
	c.noise, c.msg1 = nil, nil
	return nil
}

// version is the framing version the client speaks.
func (c *Client) version() byte {
	if c.cfg.Plaintext {
		return udpVersion
	}
	return udpVersionSealed
}

// ServerKey returns the public key the server proved in the handshake
// (the zero key with Config.Plaintext).
func (c *Client) ServerKey() PublicKey { return c.serverKey }

// short appends a short frame of plaintext type typ to the server: sealed
// under the session's key, or plain in version 1.
func (c *Client) short(b []byte, typ byte, payload []byte) []byte {
	if c.seal == nil {
		return appendUDPShort(b, typ, c.sid, payload)
	}
	return c.seal.seal(b, typ-udpData+udpSealedData, c.sid, payload)
}

// Stats returns the client's counters.
func (c *Client) Stats() Stats { return c.stats.snapshot() }

// Send implements Conn: to must be RemoteAddr.
func (c *Client) Send(to transport.Addr, p []byte) error {
	if err := c.alive(); err != nil {
		return err
	}
	if to != c.remote {
		return fmt.Errorf("transport: udp send to %s (dialed %s): %w", to, c.remote, transport.ErrUnknownPeer)
	}
	if len(p) > transport.MaxDatagram {
		return fmt.Errorf("transport: udp send %d bytes to %s: %w", len(p), to, transport.ErrTooLarge)
	}
	c.sendBuf = c.short(c.sendBuf[:0], udpData, p)
	c.stats.wrote(c.sock.Write(c.sendBuf))
	c.sent = c.cfg.Clock.Now().UnixNano()
	return nil
}

// Recv implements Conn. It also sends a PING when nothing was sent for
// KeepAlive. Datagrams that arrived before the session ended are still
// returned; then Recv fails with ErrPeerGone.
func (c *Client) Recv(p []byte) (int, transport.Addr, error) {
	if c.closed.Load() {
		return 0, "", fmt.Errorf("transport: udp recv on %s: %w", c.local, transport.ErrClosed)
	}
	if n, from, ok := c.q.pop(p); ok {
		c.ping(c.cfg.Clock.Now().UnixNano())
		return n, from, nil
	}
	if err := c.alive(); err != nil {
		return 0, "", err
	}
	return 0, "", transport.ErrWouldBlock
}

// alive checks the session, and sends a PING when due. Callers are the
// one goroutine that may Send.
func (c *Client) alive() error {
	if c.closed.Load() {
		return fmt.Errorf("transport: udp on %s: %w", c.local, transport.ErrClosed)
	}
	if c.gone.Load() {
		return fmt.Errorf("transport: udp %s said bye: %w", c.remote, ErrPeerGone)
	}
	now := c.cfg.Clock.Now().UnixNano()
	if now-c.heard.Load() > int64(c.cfg.IdleTimeout) {
		if !c.gone.Swap(true) {
			c.stats.endedIdle.Add(1)
		}
		return fmt.Errorf("transport: udp %s silent for over %v: %w", c.remote, c.cfg.IdleTimeout, ErrPeerGone)
	}
	c.ping(now)
	return nil
}

// ping sends a PING if nothing was sent for KeepAlive.
func (c *Client) ping(now int64) {
	if now-c.sent >= int64(c.cfg.KeepAlive) {
		c.sendBuf = c.short(c.sendBuf[:0], udpPing, nil)
		c.stats.wrote(c.sock.Write(c.sendBuf))
		c.sent = now
	}
}

// Ready implements Conn. It also fires when the server says BYE. Close
// does not close the channel.
func (c *Client) Ready() <-chan struct{} { return c.q.ready }

// LocalAddr implements Conn.
func (c *Client) LocalAddr() transport.Addr { return c.local }

// RemoteAddr implements Conn: the server's address.
func (c *Client) RemoteAddr() transport.Addr { return c.remote }

// Close says BYE (best effort, unless the session already ended), closes
// the socket and waits for the reader goroutine to end.
func (c *Client) Close() error {
	if c.closed.Swap(true) {
		return fmt.Errorf("transport: udp close %s: %w", c.local, transport.ErrClosed)
	}
	if !c.gone.Load() {
		b := c.short(nil, udpBye, nil)
		c.stats.wrote(c.sock.Write(b))
	}
	err := c.sock.Close()
	<-c.done
	if err != nil {
		return fmt.Errorf("transport: udp close %s: %w", c.local, err)
	}
	return nil
}

// readLoop reads the socket as the server's does (udpReader: up to
// udpReadBatch datagrams per recvmmsg on Linux, nothing allocated per
// datagram), queueing a read's datagrams before waking Recv's side once.
func (c *Client) readLoop() {
	defer close(c.done)
	r := newUDPReader(c.conn, udpClientReadBatch)
	for {
		n, err := r.read()
		if err != nil {
			if c.closed.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			continue // e.g. ICMP port unreachable: the idle timeout decides
		}
		c.take(r, n)
	}
}

// take handles the n datagrams r read, waking Recv's side once.
func (c *Client) take(r *udpReader, n int) {
	// Counted before any is queued, as the server's (Recv may take one
	// at once, and Stats then must count it).
	c.stats.countRead(r, n)
	c.q.hold()
	for i := range n {
		b, _ := r.datagram(i) // the connected socket takes only the server's
		c.handle(b)
	}
	c.q.release()
}

func (c *Client) handle(b []byte) {
	f, err := parseUDPFrame(b)
	if err != nil {
		c.stats.malformed.Add(1)
		return
	}
	switch f.typ {
	case udpData, udpPong, udpBye, udpSealedData, udpSealedPong, udpSealedBye:
		sealed := f.typ >= udpSealedData
		if sealed != (c.open != nil) { // the other version's frame
			c.stats.malformed.Add(1)
			return
		}
		if f.id != c.cid {
			c.stats.unknownConn.Add(1)
			return
		}
		if sealed {
			p, err := c.open.open(&f)
			if err != nil {
				c.stats.countOpenError(err)
				return
			}
			f.typ, f.payload = udpUnsealedType(f.typ), p
		}
	case udpRetry, udpWelcome:
		return // a late answer to a repeated HELLO: harmless
	default: // HELLO, REFUSE after the handshake, PING
		c.stats.malformed.Add(1)
		return
	}
	c.heard.Store(c.cfg.Clock.Now().UnixNano())
	switch f.typ {
	case udpData:
		if !c.q.push(c.remote, f.payload) {
			c.stats.queueDropped.Add(1)
		}
	case udpBye:
		if !c.gone.Swap(true) {
			c.stats.endedBye.Add(1)
		}
		c.q.signal()
	}
}

// ParseAddr returns the host and port of a UDP Addr: a socket's, or a
// server's peer's ("udp:HOST:PORT#N").
func ParseAddr(a transport.Addr) (netip.AddrPort, error) {
	s, ok := strings.CutPrefix(string(a), Prefix)
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("transport: %q is not a udp address: %w", a, transport.ErrUnknownPeer)
	}
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("transport: udp address %q: %w", a, err)
	}
	return ap, nil
}
