package udp

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// Server is the server side of the UDP transport: one socket, many
// peers, each a session opened by the retry-token handshake. It implements
// Conn; the Addr of a peer is "udp:HOST:PORT#N". A reader goroutine reads
// the socket into a bounded queue (with Config.Drained, its owner reads
// it: Drain); Close stops it.
type Server struct {
	cfg    Config
	conn   udpSocket
	local  transport.Addr
	port   netip.AddrPort
	tokens *udpTokens
	key    *StaticKey // nil with cfg.Plaintext
	rate   *udpRate   // sessions opened per source address
	// newcomers: an address's HELLOs that may wait in the handshake
	// queue's known or new lane (known.go)
	newcomers *udpRate
	q         *udpQueue
	stats     udpCounters
	done      chan struct{}
	closed    atomic.Bool

	mu        sync.RWMutex
	byID      map[uint64]*udpSession         // by the server-assigned sid
	byAddr    map[transport.Addr]*udpSession // by the peer's Addr
	byPeer    map[udpPeerKey]*udpSession     // by (address, cid): HELLO repeats
	num       uint64                         // sessions ever opened
	unproven  udpUnproven                    // sessions not proven yet
	known     udpKnown                       // addresses that proved a session lately
	lastSweep atomic.Int64                   // unix nanos of the last idle sweep

	sendBuf []byte // Send's frame buffer (one caller at a time)

	// hmu is held by the reader (read) while it handles a batch, and by
	// SetHandler (write) to change handler.
	hmu     sync.RWMutex
	handler transport.Handler // nil: datagrams are queued for Recv

	hs       *udpHandshakes   // the handshake workers (handshake.go); nil: on the reader
	hsBudget *udpReaderBudget // the total budget of the handshakes on the reader; nil: workers, or none
	drain    udpDrain         // Config.Drained's state (drain.go)
}

type udpPeerKey struct {
	from netip.AddrPort
	cid  uint64
}

type udpSession struct {
	addr      transport.Addr
	from      netip.AddrPort
	cid, sid  uint64
	lastHeard atomic.Int64 // unix nanos
	opened    int64        // unix nanos
	proven    atomic.Bool  // written with the server's mu held
	heard     atomic.Bool  // a sealed frame of it opened
	// Version 2: the session's keys, the client's handshake key (to know
	// a repeated HELLO) and the WELCOME to repeat to it.
	seal    *udpSealKey
	open    *udpOpenKey
	ce      [noiseKeyLen]byte
	welcome []byte
	// prev and next thread the unproven sessions in the order they
	// opened (udpUnproven).
	prev, next *udpSession
}

var _ transport.Conn = (*Server)(nil)

// Listen opens a UDP server on addr ("127.0.0.1:0" picks a free port;
// UDPAddr says which).
func Listen(addr string, cfg Config) (*Server, error) {
	cfg = cfg.WithDefaults()
	tokens, err := newUDPTokens(cfg.TokenKey, cfg.TokenLifetime)
	if err != nil {
		return nil, err
	}
	key := cfg.StaticKey
	if key == nil && !cfg.Plaintext {
		if key, err = GenerateStaticKey(); err != nil {
			return nil, err
		}
	}
	if cfg.Plaintext {
		key = nil
	}
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("transport: listen udp %s: %w", addr, err)
	}
	conn, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, fmt.Errorf("transport: listen udp %s: %w", addr, err)
	}
	if err := setBuffers(conn, cfg); err != nil {
		conn.Close()
		return nil, err
	}
	port := unmap(conn.LocalAddr().(*net.UDPAddr).AddrPort())
	sock, err := listenSocket(conn, cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:       cfg,
		conn:      sock,
		local:     transport.Addr(Prefix + port.String()),
		port:      port,
		tokens:    tokens,
		key:       key,
		rate:      newUDPRate(cfg.HandshakeRate, cfg.HandshakeBurst),
		newcomers: newUDPRate(handshakeNewcomerRate, handshakeNewcomerBurst),
		q:         newUDPQueue(cfg.QueueLen),
		done:      make(chan struct{}),
		byID:      make(map[uint64]*udpSession),
		byAddr:    make(map[transport.Addr]*udpSession),
		byPeer:    make(map[udpPeerKey]*udpSession),
		sendBuf:   make([]byte, 0, udpMaxFrame),
	}
	s.lastSweep.Store(cfg.Clock.Now().UnixNano())
	if key != nil && cfg.HandshakeWorkers > 0 {
		s.hs = s.startHandshakes(cfg.HandshakeWorkers)
	} else if b := newUDPBudget(cfg); key != nil && b != nil {
		s.hsBudget = &udpReaderBudget{b: b}
	}
	s.startReading()
	return s, nil
}

func setBuffers(conn *net.UDPConn, cfg Config) error {
	if cfg.ReadBuffer > 0 {
		if err := conn.SetReadBuffer(cfg.ReadBuffer); err != nil {
			return fmt.Errorf("transport: udp read buffer: %w", err)
		}
	}
	if cfg.WriteBuffer > 0 {
		if err := conn.SetWriteBuffer(cfg.WriteBuffer); err != nil {
			return fmt.Errorf("transport: udp write buffer: %w", err)
		}
	}
	return nil
}

// SocketBuffers returns the socket's receive and send buffer sizes in
// bytes as the kernel reports them (SO_RCVBUF, SO_SNDBUF), which may
// differ from Config.ReadBuffer and WriteBuffer: Linux doubles what
// was asked (the rest is its bookkeeping) and caps it at
// net.core.rmem_max and wmem_max (so 2 × the cap when more was asked).
// ok is false where the platform does not say (Windows, js/wasm).
func (s *Server) SocketBuffers() (read, write int, ok bool) { return socketBuffers(s.conn) }

// UDPAddr returns the socket's address, e.g. to print "udp=HOST:PORT".
func (s *Server) UDPAddr() netip.AddrPort { return s.port }

// PublicKey returns the server's public key, which clients may pin
// (Config.ServerKey); the zero key with Config.Plaintext.
func (s *Server) PublicKey() PublicKey {
	if s.key == nil {
		return PublicKey{}
	}
	return s.key.Public()
}

// version is the framing version the server speaks.
func (s *Server) version() byte {
	if s.key == nil {
		return udpVersion
	}
	return udpVersionSealed
}

// short appends a short frame of plaintext type typ to sess: sealed under
// the session's key, or plain in version 1.
func (sess *udpSession) short(b []byte, typ byte, payload []byte) []byte {
	if sess.seal == nil {
		return appendUDPShort(b, typ, sess.cid, payload)
	}
	return sess.seal.seal(b, typ-udpData+udpSealedData, sess.cid, payload)
}

// Sessions returns how many sessions are open.
func (s *Server) Sessions() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.byID)
}

// Stats returns the server's counters.
func (s *Server) Stats() Stats { return s.stats.snapshot() }

// Send implements Conn: to must be the Addr of an open session.
func (s *Server) Send(to transport.Addr, p []byte) error {
	if s.closed.Load() {
		return fmt.Errorf("transport: udp send to %s: %w", to, transport.ErrClosed)
	}
	if len(p) > transport.MaxDatagram {
		return fmt.Errorf("transport: udp send %d bytes to %s: %w", len(p), to, transport.ErrTooLarge)
	}
	s.mu.RLock()
	sess := s.byAddr[to]
	s.mu.RUnlock()
	if sess == nil {
		return fmt.Errorf("transport: udp send to %s: %w", to, transport.ErrUnknownPeer)
	}
	s.sendBuf = sess.short(s.sendBuf[:0], udpData, p)
	s.stats.wrote(s.conn.WriteToUDPAddrPort(s.sendBuf, sess.from))
	return nil
}

// Recv implements Conn. It also ends sessions idle for longer than
// IdleTimeout (checked at most four times per IdleTimeout).
func (s *Server) Recv(p []byte) (int, transport.Addr, error) {
	if s.closed.Load() {
		return 0, "", fmt.Errorf("transport: udp recv on %s: %w", s.local, transport.ErrClosed)
	}
	s.sweep(s.cfg.Clock.Now())
	n, from, ok := s.q.pop(p)
	if !ok {
		return 0, "", transport.ErrWouldBlock
	}
	return n, from, nil
}

// Ready implements Conn. Close does not close the channel.
func (s *Server) Ready() <-chan struct{} { return s.q.ready }

// LocalAddr implements Conn.
func (s *Server) LocalAddr() transport.Addr { return s.local }

// RemoteAddr implements Conn: "" (a server has many peers).
func (s *Server) RemoteAddr() transport.Addr { return "" }

// Close says BYE to every peer (best effort), closes the socket and waits
// for the reader goroutine to end.
func (s *Server) Close() error {
	if s.closed.Swap(true) {
		return fmt.Errorf("transport: udp close %s: %w", s.local, transport.ErrClosed)
	}
	s.mu.Lock()
	var b []byte
	for _, sess := range s.byID {
		b = sess.short(b[:0], udpBye, nil)
		s.stats.wrote(s.conn.WriteToUDPAddrPort(b, sess.from))
	}
	clear(s.byID)
	clear(s.byAddr)
	clear(s.byPeer)
	s.unproven = udpUnproven{}
	s.mu.Unlock()
	s.stopReading()
	err := s.conn.Close()
	<-s.done
	if s.hs != nil {
		s.hs.stop()
	}
	if err != nil {
		return fmt.Errorf("transport: udp close %s: %w", s.local, err)
	}
	return nil
}

// sweep ends idle sessions, and unproven ones past UnprovenTimeout, if a
// quarter of the shorter of the two passed since the last sweep.
func (s *Server) sweep(now time.Time) {
	t := now.UnixNano()
	last := s.lastSweep.Load()
	if t-last < int64(min(s.cfg.IdleTimeout, s.cfg.UnprovenTimeout)/4) || !s.lastSweep.CompareAndSwap(last, t) {
		return
	}
	limit := t - int64(s.cfg.IdleTimeout)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reapLocked(now)
	for _, sess := range s.byID {
		if sess.lastHeard.Load() < limit {
			s.removeLocked(sess)
			s.stats.endedIdle.Add(1)
		}
	}
}

func (s *Server) removeLocked(sess *udpSession) {
	delete(s.byID, sess.sid)
	delete(s.byAddr, sess.addr)
	delete(s.byPeer, udpPeerKey{sess.from, sess.cid})
	if !sess.proven.Load() {
		s.unproven.remove(sess)
	}
}

func (s *Server) readLoop() {
	defer close(s.done)
	r := newUDPReader(s.conn, udpReadBatch)
	out := make([]byte, 0, 128)
	for {
		n, err := r.read()
		if err != nil {
			if s.closed.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			continue // a transient error (e.g. ICMP feedback): keep reading
		}
		out = s.handleBatch(r, n, out)
	}
}

// handleBatch handles the n datagrams r read; out is a scratch buffer
// for replies, returned for reuse. One goroutine at a time (the reader,
// or Drain's caller).
func (s *Server) handleBatch(r *udpReader, n int, out []byte) []byte {
	// The batch is counted before any of it is queued: Recv may take
	// a datagram as soon as it is queued, and whoever reads Stats
	// then must see it counted.
	s.stats.countRead(r, n)
	// The batch's datagrams are queued before Recv's side is woken,
	// once: one wake-up per batch, not per datagram.
	s.q.hold()
	s.hmu.RLock()
	for i := range n {
		b, from := r.datagram(i)
		s.drain.stamp = r.at[i]
		out = s.handle(b, unmap(from), out)
	}
	s.hmu.RUnlock()
	s.q.release()
	return out
}

// handle processes one datagram from from; out is a scratch buffer for
// replies, returned for reuse.
func (s *Server) handle(b []byte, from netip.AddrPort, out []byte) []byte {
	f, err := parseUDPFrame(b)
	if err != nil {
		s.stats.malformed.Add(1)
		return out
	}
	now := s.cfg.Clock.Now()
	switch f.typ {
	case udpData, udpPing, udpBye, udpSealedData, udpSealedPing, udpSealedBye:
		sealed := f.typ >= udpSealedData
		if sealed != (s.key != nil) { // the other version's frame
			s.stats.malformed.Add(1)
			return out
		}
		s.mu.RLock()
		sess := s.byID[f.id]
		s.mu.RUnlock()
		if sess == nil || sess.from != from {
			s.stats.unknownConn.Add(1)
			return out
		}
		if sealed {
			p, err := sess.open.open(&f)
			if err != nil {
				s.stats.countOpenError(err)
				return out
			}
			f.typ, f.payload = udpUnsealedType(f.typ), p
			if !sess.heard.Load() {
				sess.heard.Store(true) // it holds the keys (unproven.go's victim)
			}
		}
		sess.lastHeard.Store(now.UnixNano())
		switch f.typ {
		case udpData:
			s.proveByData(sess)
			if s.handler != nil { // hmu is held by handleBatch
				s.handler(sess.addr, f.payload, s.arrival(now))
			} else if !s.q.push(sess.addr, f.payload) {
				s.stats.queueDropped.Add(1)
			}
		case udpPing:
			out = sess.short(out[:0], udpPong, nil)
			s.stats.wrote(s.conn.WriteToUDPAddrPort(out, from))
		case udpBye:
			s.mu.Lock()
			if s.byID[sess.sid] == sess {
				s.removeLocked(sess)
				s.stats.endedBye.Add(1)
			}
			s.mu.Unlock()
		}
	case udpHello:
		out = s.hello(f, from, now, out)
	default: // RETRY, WELCOME, REFUSE, PONG: never sent to a server
		s.stats.malformed.Add(1)
	}
	s.sweep(now)
	return out
}

// hello answers a HELLO. Until a token proves that the sender receives at
// its source address, the only answers are RETRY and REFUSE, both far
// smaller than the padded HELLO, and no state is kept.
func (s *Server) hello(f udpFrame, from netip.AddrPort, now time.Time, out []byte) []byte {
	v := s.version()
	if f.version != v {
		s.stats.refused.Add(1)
		out = appendUDPRefuse(out[:0], v, f.id, udpRefuseVersion)
		s.stats.wrote(s.conn.WriteToUDPAddrPort(out, from))
		return out
	}
	if len(f.token) > 0 {
		authentic, fresh := s.tokens.check(f.token, now, from, f.id, f.ephemeral)
		if !authentic {
			s.stats.badToken.Add(1)
			return out // forged or meant for another address: silence
		}
		if fresh {
			return s.open(f, from, now, out)
		}
		s.stats.badToken.Add(1) // stale but authentic: a new token below
	}
	var tok [udpTokenLen]byte
	out = appendUDPRetry(out[:0], v, f.id, s.tokens.issue(tok[:0], now, from, f.id, f.ephemeral))
	s.stats.retries.Add(1)
	s.stats.wrote(s.conn.WriteToUDPAddrPort(out, from))
	return out
}

// open opens (or, for a repeated HELLO, finds) the session of a verified
// peer and sends it a WELCOME. In version 2 a new session's handshake is
// queued for the workers (handshake.go), which open it; a repeated HELLO
// must carry the same key as the first and gets the same WELCOME.
func (s *Server) open(f udpFrame, from netip.AddrPort, now time.Time, out []byte) []byte {
	k := udpPeerKey{from, f.id}
	s.mu.RLock()
	sess := s.byPeer[k]
	lane := s.handshakeLane(from.Addr(), now)
	s.mu.RUnlock()
	if sess == nil && s.hs != nil && s.hs.pending(k) {
		s.stats.handshakesDropped.Add(1) // its handshake waits or runs
		return out
	}
	if sess == nil && !s.rate.allow(from.Addr(), now) {
		s.stats.throttled.Add(1)
		return out
	}
	if sess == nil && s.key != nil {
		j := udpHandshakeJob{from: from, cid: f.id, now: now}
		copy(j.e[:], f.ephemeral)
		if s.hs == nil {
			if s.hsBudget != nil && !s.hsBudget.allow(now, lane != laneRest) {
				s.stats.handshakesDropped.Add(1)
				return out
			}
			return s.handshake(j, out)
		}
		if !s.hs.add(j, lane) {
			s.stats.handshakesDropped.Add(1)
		}
		return out
	}
	return s.register(from, f.id, f.ephemeral, nil, now, out)
}

// register opens the session of (from, cid) (fresh, if the handshake made
// it; a plain one in version 1), unless it is open (then it must have
// the same client key ce) or the server is full, and sends the WELCOME
// (or a REFUSE).
func (s *Server) register(from netip.AddrPort, cid uint64, ce []byte, fresh *udpSession, now time.Time, out []byte) []byte {
	s.mu.Lock()
	sess := s.byPeer[udpPeerKey{from, cid}]
	if sess != nil && s.key != nil && !bytes.Equal(sess.ce[:], ce) {
		s.mu.Unlock()
		s.stats.badToken.Add(1) // the same peer and id with another key
		return out
	}
	if sess == nil {
		var room bool
		if !s.closed.Load() {
			out, room = s.makeRoomLocked(from.Addr(), now, out)
		}
		if !room {
			s.mu.Unlock()
			s.stats.refused.Add(1)
			out = appendUDPRefuse(out[:0], s.version(), cid, udpRefuseFull)
			s.stats.wrote(s.conn.WriteToUDPAddrPort(out, from))
			return out
		}
		if fresh == nil {
			fresh = &udpSession{from: from, cid: cid, sid: udpRandomID()}
		}
		if s.byID[fresh.sid] != nil { // a 64-bit collision: the client retries
			s.mu.Unlock()
			return out
		}
		s.num++
		sess = fresh
		sess.addr = transport.Addr(Prefix + from.String() + "#" + strconv.FormatUint(s.num, 10))
		sess.opened = now.UnixNano()
		sid := sess.sid
		s.unproven.add(sess)
		s.byID[sid] = sess
		s.byAddr[sess.addr] = sess
		s.byPeer[udpPeerKey{from, cid}] = sess
		s.stats.opened.Add(1)
	}
	sess.lastHeard.Store(now.UnixNano())
	s.mu.Unlock()
	if sess.welcome != nil {
		out = append(out[:0], sess.welcome...)
	} else {
		out = appendUDPWelcome(out[:0], cid, sess.sid)
	}
	s.stats.wrote(s.conn.WriteToUDPAddrPort(out, from))
	return out
}

// respond runs the server's half of the handshake for a proven HELLO of
// version 2 from (from, cid) with the client's key ce: a new session (not
// yet registered) with its id, keys and WELCOME.
func (s *Server) respond(cid uint64, ce []byte, from netip.AddrPort) (*udpSession, error) {
	e, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	sess := &udpSession{from: from, cid: cid, sid: udpRandomID()}
	copy(sess.ce[:], ce)
	var payload [8]byte
	binary.BigEndian.PutUint64(payload[:], sess.sid)
	welcome := appendUDPWelcomeSealed(make([]byte, 0, 10+noiseMsg2Len), cid, nil)
	welcome, send, recv, err := noiseRespond(udpPrologue(cid), s.key, e, ce, welcome, payload[:])
	if err != nil {
		return nil, err
	}
	sess.welcome = welcome
	sess.seal, sess.open = newUDPKeys(send, recv)
	return sess, nil
}

// udpPrologue is the handshake's prologue: the framing version and the
// client's connection id.
func udpPrologue(cid uint64) []byte {
	b := append([]byte("rewind-udp"), udpVersionSealed)
	return binary.BigEndian.AppendUint64(b, cid)
}

// countOpenError counts a sealed frame that did not open.
func (c *udpCounters) countOpenError(err error) {
	if errors.Is(err, ErrReplayed) {
		c.replayed.Add(1)
	} else {
		c.badSeal.Add(1)
	}
}
