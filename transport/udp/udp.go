package udp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// Prefix begins the text of every UDP address: "udp:127.0.0.1:4000" for a
// socket, "udp:127.0.0.1:4000#7" for a server's seventh session (the
// session number keeps a rejoin from the same address a new peer).
const Prefix = "udp:"

// Config holds the UDP transport's settings. The zero value means every
// default; tests shorten the timers.
type Config struct {
	// IdleTimeout ends a session that heard nothing from its peer for this
	// long (default 5 s, the player timeout).
	IdleTimeout time.Duration
	// KeepAlive is how long a client may send nothing before its next Send
	// or Recv sends a PING that the server answers, so that a quiet session
	// stays alive on both sides (default 1 s).
	KeepAlive time.Duration
	// HandshakeTimeout bounds Dial (default 5 s).
	HandshakeTimeout time.Duration
	// HandshakeRetry is how long Dial waits for an answer before it
	// sends its HELLO again (default 250 ms).
	HandshakeRetry time.Duration
	// TokenLifetime is how long a retry token stays valid (default 10 s).
	TokenLifetime time.Duration
	// MaxSessions caps a server's sessions (default 1024). With every
	// session taken, a new one evicts the oldest unproven session, and
	// is refused only when all are proven.
	MaxSessions int
	// MaxUnprovenPerIP caps the unproven sessions (handshake done, not
	// yet proven: see Prover) of one source IP address (IPv6: of one /64,
	// as HandshakeRate counts them) (default 8): at the cap, a new one
	// evicts that address's oldest unproven session.
	MaxUnprovenPerIP int
	// UnprovenTimeout ends a session still unproven this long after it
	// opened, whatever it sends (default 3 s: a client sends its match
	// hello as soon as it is welcomed).
	UnprovenTimeout time.Duration
	// HandshakeRate and HandshakeBurst cap the sessions one source
	// address (IPv6: one /64) may open: a token bucket of HandshakeBurst
	// (default 200) refilled at HandshakeRate a second (default 100),
	// checked only once the retry token proved the address and before
	// the handshake's public-key work; a HELLO beyond it is dropped
	// unanswered (counted in Throttled) and the client's next repeat may
	// pass. A negative HandshakeRate turns the limit off.
	HandshakeRate  float64
	HandshakeBurst int
	// HandshakeWorkers is how many goroutines run the server's half of
	// new sessions' handshakes (the public-key work), off the reader
	// goroutine, from a queue bounded per lane and per address, fair
	// across addresses, where no HELLO waits over a second
	// (handshake.go): at most that many
	// cores go to handshakes, whatever a flood brings. Default: half of
	// GOMAXPROCS, at least 1; negative: on the reader (as before).
	HandshakeWorkers int
	// HandshakeTotalRate and HandshakeTotalBurst are the budget of
	// handshakes of all addresses together: a token bucket of
	// HandshakeTotalBurst (default 200) refilled at HandshakeTotalRate a
	// second (default 100), which the handshake workers draw from before
	// each handshake's public-key work. With it spent, HELLOs wait in the
	// handshake queue (a newcomer's first) or are dropped beyond it
	// (HandshakesDropped), and their clients repeat them. At the default
	// (one address's own HandshakeRate and HandshakeBurst: what one
	// address could do before, all of them now do together), handshakes
	// take at most 3 to 8 % of a core (0.3 to 0.8 ms each), whatever a
	// flood from however many addresses brings; a server of 1,024 sessions
	// opens all of them in about 8 s. A negative rate turns it off. With
	// the handshakes on the reader (HandshakeWorkers < 0) there is no
	// queue: a HELLO that finds the budget spent is dropped
	// (HandshakesDropped), and only a newcomer (an address, IPv6: a /64,
	// holding no unproven session) may take its last token.
	HandshakeTotalRate  float64
	HandshakeTotalBurst int
	// ProveExplicitly makes a session proven only when the user calls
	// Prove (rewind's Host does, once the match admitted the player).
	// By default a session's first DATA frame proves it.
	ProveExplicitly bool
	// QueueLen is how many received datagrams wait for Recv before further
	// ones are dropped (default 1024).
	QueueLen int
	// StaticKey is a server's long-term key: its identity, which clients
	// may pin (ServerKey). Nil means a new random key per server (see
	// Server.PublicKey); keep one to let clients pin it across
	// restarts.
	StaticKey *StaticKey
	// ServerKey, on a client, pins the server's public key: a server
	// that proves another key is refused with ErrServerKey. The zero
	// value takes any key (VerifyServerKey still sees it).
	ServerKey PublicKey
	// VerifyServerKey, on a client, is called during the handshake with
	// the server's proven public key (after the ServerKey check); an
	// error fails the dial with that error. Nil accepts the key.
	VerifyServerKey func(PublicKey) error
	// Plaintext speaks framing version 1: no handshake keys, nothing
	// sealed, so that anyone on the path may read, forge and replay
	// frames. For measuring the cost of encryption and for networks
	// trusted as a whole; both ends must set it (one that does not is
	// refused for its protocol version).
	Plaintext bool
	// TokenKey is the secret that signs retry tokens (32 bytes). Servers
	// behind one address must share it; nil means a random key per server.
	TokenKey []byte
	// Drained, on a server, keeps its socket out of the Go runtime's
	// poller and reads it only when its owner calls Drain (a host.Multi
	// before it runs rooms: at its tick phases with rooms due): a datagram that arrives meanwhile
	// waits in the socket's buffer (size it with ReadBuffer for what
	// arrives between drains) and wakes no thread, and the Handler gets
	// its arrival as the kernel stamped it. Handshakes and pings are
	// answered at the drain. If nobody drains for 100 ms, the server's own
	// goroutine does. On a client, the socket has no reader goroutine
	// once the handshake is done: it is read when its owner calls
	// Client.Drain (a load bot, once a tick), and a datagram that arrives
	// meanwhile wakes no thread; Ready does not fire for it. Linux only:
	// elsewhere it is ignored (the socket is read as datagrams arrive).
	Drained bool
	// ReadBuffer and WriteBuffer set the socket's buffer sizes in bytes;
	// zero leaves the system's default.
	ReadBuffer, WriteBuffer int
	// LocalAddr, if set, is the address a client's socket binds to
	// ("127.0.0.5:0": load generators on distinct loopback addresses);
	// by default the system picks one. A server ignores it.
	LocalAddr string
	// Clock reads the time for idle timeouts, keep-alives and tokens
	// (default the wall clock). It must be safe for concurrent use.
	Clock transport.Clock
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.IdleTimeout, 5*time.Second)
	def(&c.KeepAlive, time.Second)
	def(&c.HandshakeTimeout, 5*time.Second)
	def(&c.HandshakeRetry, 250*time.Millisecond)
	def(&c.TokenLifetime, 10*time.Second)
	def(&c.UnprovenTimeout, 3*time.Second)
	if c.MaxUnprovenPerIP <= 0 {
		c.MaxUnprovenPerIP = 8
	}
	if c.HandshakeRate == 0 {
		c.HandshakeRate = 100
	}
	if c.HandshakeBurst <= 0 {
		c.HandshakeBurst = 200
	}
	if c.HandshakeTotalRate == 0 {
		c.HandshakeTotalRate = 100
	}
	if c.HandshakeTotalBurst <= 0 {
		c.HandshakeTotalBurst = 200
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = 1024
	}
	if c.HandshakeWorkers == 0 {
		c.HandshakeWorkers = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if c.QueueLen <= 0 {
		c.QueueLen = 1024
	}
	if c.Clock == nil {
		c.Clock = transport.WallClock{}
	}
	return c
}

// Stats counts a UDP endpoint's traffic and what it refused.
type Stats struct {
	// DatagramsIn and BytesIn count every datagram read from the socket,
	// valid or not; DatagramsOut and BytesOut every datagram written,
	// handshake and control frames included.
	DatagramsIn, BytesIn, DatagramsOut, BytesOut uint64
	// Malformed counts datagrams that did not parse, or that the endpoint
	// should never receive (a RETRY at a server), dropped.
	Malformed uint64
	// UnknownConn counts well-formed frames for a connection id with no
	// session, or from an address other than the session's, dropped.
	UnknownConn uint64
	// BadToken counts HELLOs with a forged, stale or misaddressed token,
	// or whose handshake failed (a bad key, a repeat with another key).
	BadToken uint64
	// BadSeal counts sealed frames of a session that did not open:
	// forged, corrupted or under another key. Replayed counts sealed
	// frames whose counter was taken already or fell out of the replay
	// window. Both are dropped.
	BadSeal, Replayed uint64
	// Retries counts RETRYs sent (server) or received (client).
	Retries uint64
	// Refused counts HELLOs refused because the server was full or spoke
	// another version.
	Refused uint64
	// QueueDropped counts datagrams dropped because Recv fell behind.
	QueueDropped uint64
	// SendErrors counts datagrams the socket would not take (dropped).
	SendErrors uint64
	// Opened counts sessions opened; EndedBye and EndedIdle those ended
	// by a BYE and by the idle timeout.
	Opened, EndedBye, EndedIdle uint64
	// UnprovenEvicted counts unproven sessions ended to make room for a
	// new one (MaxUnprovenPerIP, MaxSessions); UnprovenReaped those ended
	// by UnprovenTimeout.
	UnprovenEvicted, UnprovenReaped uint64
	// Throttled counts proven HELLOs of new sessions dropped because
	// their address opened too many (HandshakeRate, HandshakeBurst).
	Throttled uint64
	// HandshakesDropped counts proven HELLOs of new sessions dropped
	// unanswered because the handshake queue had no room for them (in
	// all, or for their address), or their session's handshake was
	// queued already (HandshakeWorkers), or, with the handshakes on the
	// reader, the total budget was spent (HandshakeTotalRate).
	HandshakesDropped uint64
	// Flushes counts Batch flushes that had datagrams to send (one
	// sendmmsg each on Linux, up to 64 datagrams); Reads counts the
	// socket reads that returned datagrams (one recvmmsg each on Linux).
	// DatagramsIn / Reads is how many datagrams a read took on average.
	Flushes, Reads uint64
}

// udpCounters is Stats with atomic fields.
type udpCounters struct {
	datagramsIn, bytesIn, datagramsOut, bytesOut atomic.Uint64
	malformed, unknownConn, badToken, retries    atomic.Uint64
	badSeal, replayed                            atomic.Uint64
	refused, queueDropped, sendErrors            atomic.Uint64
	opened, endedBye, endedIdle                  atomic.Uint64
	unprovenEvicted, unprovenReaped, throttled   atomic.Uint64
	handshakesDropped                            atomic.Uint64
	flushes, reads                               atomic.Uint64
}

func (c *udpCounters) snapshot() Stats {
	return Stats{
		DatagramsIn: c.datagramsIn.Load(), BytesIn: c.bytesIn.Load(),
		DatagramsOut: c.datagramsOut.Load(), BytesOut: c.bytesOut.Load(),
		Malformed: c.malformed.Load(), UnknownConn: c.unknownConn.Load(),
		BadToken: c.badToken.Load(), Retries: c.retries.Load(),
		BadSeal: c.badSeal.Load(), Replayed: c.replayed.Load(),
		Refused: c.refused.Load(), QueueDropped: c.queueDropped.Load(),
		SendErrors: c.sendErrors.Load(), Opened: c.opened.Load(),
		EndedBye: c.endedBye.Load(), EndedIdle: c.endedIdle.Load(),
		UnprovenEvicted: c.unprovenEvicted.Load(), UnprovenReaped: c.unprovenReaped.Load(),
		Throttled: c.throttled.Load(), HandshakesDropped: c.handshakesDropped.Load(),
		Flushes: c.flushes.Load(), Reads: c.reads.Load(),
	}
}

func (c *udpCounters) wrote(n int, err error) {
	if err != nil {
		c.sendErrors.Add(1)
		return
	}
	c.datagramsOut.Add(1)
	c.bytesOut.Add(uint64(n))
}

// udpQueue is the bounded queue between a socket's reader goroutine and
// Recv: fixed slots, so that queueing a datagram does not allocate.
type udpQueue struct {
	mu         sync.Mutex
	slots      []udpSlot
	head, size int
	ready      chan struct{}
	// held and missed: between hold and release, push does not signal
	// ready but notes that it should have; release signals once.
	held, missed bool
}

type udpSlot struct {
	from transport.Addr
	n    int
	buf  [transport.MaxDatagram]byte
}

func newUDPQueue(n int) *udpQueue {
	return &udpQueue{slots: make([]udpSlot, n), ready: make(chan struct{}, 1)}
}

// push queues a copy of p from from; false if the queue is full.
func (q *udpQueue) push(from transport.Addr, p []byte) bool {
	q.mu.Lock()
	if q.size == len(q.slots) {
		q.mu.Unlock()
		return false
	}
	s := &q.slots[(q.head+q.size)%len(q.slots)]
	s.from = from
	s.n = copy(s.buf[:], p)
	q.size++
	held := q.held
	q.missed = q.missed || held
	q.mu.Unlock()
	if !held {
		q.signal()
	}
	return true
}

// hold makes push leave ready alone until release: a batch of datagrams
// is queued with one wake-up of Recv's side.
func (q *udpQueue) hold() {
	q.mu.Lock()
	q.held = true
	q.mu.Unlock()
}

// release ends a hold, signalling ready if a push happened during it.
func (q *udpQueue) release() {
	q.mu.Lock()
	missed := q.missed
	q.held, q.missed = false, false
	q.mu.Unlock()
	if missed {
		q.signal()
	}
}

func (q *udpQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// pop copies the oldest datagram into p; ok is false if none waits.
func (q *udpQueue) pop(p []byte) (n int, from transport.Addr, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.size == 0 {
		return 0, "", false
	}
	s := &q.slots[q.head]
	n, from = copy(p, s.buf[:s.n]), s.from
	q.head = (q.head + 1) % len(q.slots)
	q.size--
	return n, from, true
}

// udpTokenLen is a retry token's length: issue time (8) and MAC (16).
const udpTokenLen = 8 + 16

// udpTokens issues and checks stateless retry tokens: the time of issue
// and an HMAC-SHA-256 (truncated to 128 bits) over it, the client's
// address and port, its connection id and (version 2) its handshake's
// ephemeral key. Only a client that receives datagrams at that address
// can present a valid token from it.
//
// Computing a MAC allocates nothing (a flood of HELLOs costs no garbage):
// one keyed HMAC state, reset for each token, and its scratch buffers are
// kept and used under mu.
type udpTokens struct {
	key      [32]byte
	lifetime time.Duration

	mu  sync.Mutex
	h   hash.Hash // HMAC-SHA-256 under key
	msg [8 + 16 + 2 + 8 + noiseKeyLen]byte
	sum [sha256.Size]byte
}

func newUDPTokens(key []byte, lifetime time.Duration) (*udpTokens, error) {
	t := &udpTokens{lifetime: lifetime}
	switch {
	case key == nil:
		if _, err := rand.Read(t.key[:]); err != nil {
			return nil, fmt.Errorf("transport: token key: %w", err)
		}
	case len(key) != len(t.key):
		return nil, fmt.Errorf("transport: token key of %d bytes, want %d: %w", len(key), len(t.key), transport.ErrBadConfig)
	default:
		copy(t.key[:], key)
	}
	t.h = hmac.New(sha256.New, t.key[:])
	return t, nil
}

func (t *udpTokens) mac(dst []byte, issued uint64, from netip.AddrPort, cid uint64, e []byte) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	msg := &t.msg
	clear(msg[:])
	binary.BigEndian.PutUint64(msg[0:], issued)
	ip := from.Addr().As16()
	copy(msg[8:], ip[:])
	binary.BigEndian.PutUint16(msg[24:], from.Port())
	binary.BigEndian.PutUint64(msg[26:], cid)
	copy(msg[34:], e) // none (version 1): zeros
	t.h.Reset()
	t.h.Write(msg[:])
	return append(dst, t.h.Sum(t.sum[:0])[:16]...)
}

// issue appends a token for (from, cid, e) issued at now.
func (t *udpTokens) issue(dst []byte, now time.Time, from netip.AddrPort, cid uint64, e []byte) []byte {
	issued := uint64(now.UnixNano())
	dst = binary.BigEndian.AppendUint64(dst, issued)
	return t.mac(dst, issued, from, cid, e)
}

// check reports whether tok is authentic for (from, cid, e), and whether
// it is still fresh at now.
func (t *udpTokens) check(tok []byte, now time.Time, from netip.AddrPort, cid uint64, e []byte) (authentic, fresh bool) {
	if len(tok) != udpTokenLen {
		return false, false
	}
	issued := binary.BigEndian.Uint64(tok)
	var buf [16]byte
	if !hmac.Equal(t.mac(buf[:0], issued, from, cid, e), tok[8:]) {
		return false, false
	}
	age := now.Sub(time.Unix(0, int64(issued)))
	return true, age >= -time.Second && age <= t.lifetime
}

// udpRandomID returns a random nonzero connection id.
func udpRandomID() uint64 {
	var b [8]byte
	for {
		rand.Read(b[:]) // never fails (crypto/rand panics rather)
		if id := binary.BigEndian.Uint64(b[:]); id != 0 {
			return id
		}
	}
}

// unmap normalizes an IPv4-mapped IPv6 address to IPv4.
func unmap(a netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
}
