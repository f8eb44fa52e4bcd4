package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"github.com/rewindnet/rewind/internal/logsample"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// serverName is the gateway's server endpoint on its loopback network.
const serverName = "gateway"

// Gateway serves the JSON lockstep protocol (docs/gateway.md) over
// WebSocket: every connection plays as a lockstep player of the match a
// rewind Host runs over Conn. It is an http.Handler; one Gateway serves
// one game, and one Host (Conn is that host's, or a member of its
// MultiConn).
type Gateway[I any] struct {
	cfg    Config[I]
	g      game.Game[I]
	it     *inputs.Type[I]
	dec    decoder
	schema *world.Schema
	net    *transport.SimNetwork
	srv    *transport.SimConn
	rate   int
	compat uint64
	layout uint64
	hist   int // ticks of history per player
	log    *slog.Logger
	refLog logsample.Sampler // refusals, one line per reason per second

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	tokens  map[string]*player[I]
	nextID  uint64
	seqs    [game.MaxPlayers]seqRing
	players int

	st stats
	// onTake, when set (tests), is told each input's sequence and the
	// newest tick sent to its player when the player took it.
	onTake func(seq uint64, tick uint32)
}

// seqRing remembers which sequence set a JSON player's input for the
// ticks it sampled lately.
type seqRing struct {
	tick [256]uint32
	seq  [256]uint64
}

// stats are the gateway's counters (atomics: any goroutine).
type stats struct {
	conns, resumes, checkpoints, pages, full, errors atomic.Uint64
	msgsIn, bytesIn, msgsOut, bytesOut, ticksOut     atomic.Uint64
	initials, rateLimited, tooLarge, invalidInputs   atomic.Uint64
}

// Stats is what a Gateway has done.
type Stats struct {
	// Connections counts WebSocket connections accepted; Players is the
	// players now in the match (attached or waiting for a resume).
	Connections uint64
	Players     int
	// Resumes counts resumes that kept their slot; Checkpoints the
	// answers sent to desyncs, of which Pages were pages messages (the
	// rest whole initial_states); Initials every initial_state sent.
	Resumes, Checkpoints, Pages, Initials uint64
	// Full counts connections refused for want of a slot; Errors every
	// error message sent, of which InvalidInputs, RateLimited and TooLarge.
	Full, Errors, InvalidInputs, RateLimited, TooLarge uint64
	// MessagesIn, BytesIn, MessagesOut and BytesOut count WebSocket
	// messages and their bytes; TicksOut the tick messages sent.
	MessagesIn, BytesIn, MessagesOut, BytesOut, TicksOut uint64
}

// New returns a gateway for g, whose match a Host must run over Conn.
func New[I any](g game.Game[I], cfg Config[I]) (*Gateway[I], error) {
	cfg = cfg.withDefaults()
	it, err := inputs.TypeOf[I](g)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w: input type: %v", ErrConfig, err)
	}
	schema, w, err := game.NewWorld(g, cfg.Schema)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w: %v", ErrConfig, err)
	}
	rate := game.RateOf(g)
	gw := &Gateway[I]{
		cfg: cfg, g: g, it: it, schema: schema, rate: rate,
		compat: game.Fingerprint(it.Fingerprint(), w.Layout().Hash(), rate),
		layout: w.Layout().Hash(),
		hist:   max(int(cfg.History*time.Duration(rate)/time.Second), 1),
		log:    cfg.Log,
		tokens: map[string]*player[I]{},
		net:    transport.NewLoopback(),
	}
	gw.dec = decoder{schema: it.Schema, compat: gw.compat, pageCount: w.PageCount()}
	if cfg.Destination != nil {
		if cfg.DestinationBound <= 0 {
			return nil, fmt.Errorf("gateway: %w: Destination needs a positive DestinationBound", ErrConfig)
		}
		gw.dec.destBound = cfg.DestinationBound
		gw.dec.dest = func(x, y int32) []byte {
			in := cfg.Destination(x, y)
			return it.Pack(make([]byte, it.Size()), &in)
		}
	}
	if gw.log == nil {
		gw.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if gw.srv, err = gw.net.Listen(serverName); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	gw.ctx, gw.cancel = context.WithCancel(context.Background())
	return gw, nil
}

// Conn returns the server side of the gateway's players: the Host of the
// match runs over it (alone, or as a member of a transport.MultiConn).
// The Host owns it.
func (gw *Gateway[I]) Conn() transport.Conn { return gw.srv }

// Schema returns the schema the game is registered in: give it to the
// Host (its Server.Schema), so that the game is registered once.
func (gw *Gateway[I]) Schema() *world.Schema { return gw.schema }

// Stats returns the gateway's counters. It is safe for concurrent use.
func (gw *Gateway[I]) Stats() Stats {
	gw.mu.Lock()
	n := gw.players
	gw.mu.Unlock()
	s := &gw.st
	return Stats{Connections: s.conns.Load(), Players: n, Resumes: s.resumes.Load(), Checkpoints: s.checkpoints.Load(),
		Pages: s.pages.Load(), Initials: s.initials.Load(), Full: s.full.Load(), Errors: s.errors.Load(), InvalidInputs: s.invalidInputs.Load(),
		RateLimited: s.rateLimited.Load(), TooLarge: s.tooLarge.Load(), MessagesIn: s.msgsIn.Load(), BytesIn: s.bytesIn.Load(),
		MessagesOut: s.msgsOut.Load(), BytesOut: s.bytesOut.Load(), TicksOut: s.ticksOut.Load()}
}

// Close ends every player (each says bye to the match) and connection,
// and waits for them. It does not close Conn (the Host does).
func (gw *Gateway[I]) Close() error {
	gw.mu.Lock()
	if gw.closed {
		gw.mu.Unlock()
		return nil
	}
	gw.closed = true
	gw.mu.Unlock()
	gw.cancel()
	gw.wg.Wait()
	return nil
}

// enter counts a goroutine Close waits for (it calls gw.wg.Done), unless
// the gateway is closed.
func (gw *Gateway[I]) enter() bool {
	gw.mu.Lock()
	defer gw.mu.Unlock()
	if gw.closed {
		return false
	}
	gw.wg.Add(1)
	return true
}

// recordSeq notes that player p's input for tick t came from sequence seq.
func (gw *Gateway[I]) recordSeq(p game.PlayerID, t uint32, seq uint64) {
	gw.mu.Lock()
	r := &gw.seqs[p]
	r.tick[t&255], r.seq[t&255] = t, seq
	gw.mu.Unlock()
}

// seqOf returns the sequence of player p's input for tick t, or 0.
func (gw *Gateway[I]) seqOf(p game.PlayerID, t uint32) uint64 {
	gw.mu.Lock()
	defer gw.mu.Unlock()
	r := &gw.seqs[p]
	if r.tick[t&255] != t {
		return 0
	}
	return r.seq[t&255]
}

// newToken returns a fresh resume token: 128 random bits in hex.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported systems
	return hex.EncodeToString(b[:])
}

// ServeHTTP accepts a WebSocket and plays it as a lockstep player:
// after ResumeWait without a resume message, in a new slot.
func (gw *Gateway[I]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := &socket{gw: statsOf(gw), out: make(chan outMsg, gw.cfg.SendQueue), done: make(chan struct{})}
	tooLarge := func() {
		gw.st.tooLarge.Add(1)
		s.fail(CodeTooLarge, fmt.Sprintf("a message over %d bytes", gw.cfg.MaxMessage))
	}
	ws, err := websocket.Accept(netutil.GuardWebSocket(w, gw.hardLimit(), tooLarge), r, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // a game API for any page's origin, like the relay's WebDoom lobby
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		return // Accept answered the bad handshake
	}
	if !gw.enter() {
		ws.CloseNow()
		return
	}
	defer gw.wg.Done()
	ws.SetReadLimit(gw.hardLimit())
	s.ws = ws
	s.secure = r.TLS != nil || loopback(r.RemoteAddr)
	s.ip = remoteIP(r.RemoteAddr)
	gw.st.conns.Add(1)
	msgs := make(chan []byte, 16)
	ctx, cancel := context.WithCancel(gw.ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); s.writeLoop(ctx) }()
	go func() { defer wg.Done(); gw.readLoop(ctx, s, msgs) }()
	go func() { defer wg.Done(); s.closer(ctx) }()
	gw.serveSocket(ctx, s, msgs)
	s.close(websocket.StatusNormalClosure, "")
	select {
	case <-s.done:
	case <-ctx.Done():
	}
	cancel()
	wg.Wait()
}

// serveSocket gives the socket its player (a resumed one or a new one) and
// hands it every message until the socket ends.
func (gw *Gateway[I]) serveSocket(ctx context.Context, s *socket, msgs <-chan []byte) {
	var first []byte
	t := time.NewTimer(gw.cfg.ResumeWait)
	select {
	case b, ok := <-msgs:
		if !ok {
			t.Stop()
			return
		}
		first = b
	case <-t.C:
	case <-ctx.Done():
		return
	}
	t.Stop()
	var p *player[I]
	if first != nil {
		m, perr := gw.dec.decode(first)
		if perr == nil && m.kind == msgResume {
			first = nil
			p = gw.resume(s, m)
		}
	}
	if p == nil {
		var ok bool
		if p, ok = gw.newPlayer(s.ip); !ok {
			return
		}
		p.post(ctx, event{kind: evAttach, sock: s})
	}
	if first != nil {
		gw.route(ctx, s, p, first)
	}
	for b := range msgs {
		gw.route(ctx, s, p, b)
	}
	p.post(ctx, event{kind: evDetach, sock: s})
}

// resume attaches s to the player of m's token, or says why not (then s
// gets a new slot: resume returns nil).
func (gw *Gateway[I]) resume(s *socket, m clientMsg) *player[I] {
	if !s.secure {
		s.refuse(CodeInvalidInput, "resume is honoured only over wss:// (or on loopback)")
		return nil
	}
	gw.mu.Lock()
	p := gw.tokens[m.token]
	gw.mu.Unlock()
	if p == nil {
		s.refuse(CodeInvalidInput, "unknown or expired resumeToken: playing in a new slot")
		return nil
	}
	if !p.post(gw.ctx, event{kind: evAttach, sock: s, resume: true, lastTick: m.lastTick}) {
		return nil
	}
	gw.st.resumes.Add(1)
	gw.log.Info("json player resumed", "token_prefix", m.token[:4], "last_tick", m.lastTick)
	return p
}

// route decodes one message and hands it to p, or answers the error.
func (gw *Gateway[I]) route(ctx context.Context, s *socket, p *player[I], b []byte) {
	m, perr := gw.dec.decode(b)
	if perr != nil {
		s.refuse(perr.code, perr.msg)
		return
	}
	switch m.kind {
	case msgResume:
		s.refuse(CodeInvalidInput, "resume only as a connection's first message")
		return
	case msgInput:
		if last := p.lastSeq.Load(); m.seq <= last || !p.lastSeq.CompareAndSwap(last, m.seq) {
			s.refuse(CodeInvalidInput, "sequence must increase: this one is not past the last one taken")
			return
		}
	case msgDesync:
		if m.tickID > p.sentTick.Load() {
			s.refuse(CodeInvalidInput, "desync: tickId is a tick not sent yet")
			return
		}
	}
	p.post(ctx, event{kind: evMsg, sock: s, msg: m})
}

// readLoop reads the socket's messages into msgs (closed when the socket
// ends), answering those over the rate with rate_limited.
func (gw *Gateway[I]) readLoop(ctx context.Context, s *socket, msgs chan<- []byte) {
	defer close(msgs)
	tokens, last := float64(gw.cfg.Burst), time.Now()
	for {
		typ, b, err := gw.read(ctx, s)
		if err != nil {
			return
		}
		gw.st.msgsIn.Add(1)
		gw.st.bytesIn.Add(uint64(len(b)))
		now := time.Now()
		tokens = min(tokens+now.Sub(last).Seconds()*gw.cfg.Rate, float64(gw.cfg.Burst))
		last = now
		if tokens < 1 {
			gw.st.rateLimited.Add(1)
			s.refuse(CodeRateLimited, fmt.Sprintf("more than %g messages a second", gw.cfg.Rate))
			continue
		}
		tokens--
		if typ != websocket.MessageText {
			s.refuse(CodeInvalidInput, "binary message: every message is a text frame of JSON")
			continue
		}
		select {
		case msgs <- b:
		case <-ctx.Done():
			return
		case <-s.done:
			return
		}
	}
}

// hardLimit is the most a message may declare before the connection is
// cut at once (the frame guard): 16 times MaxMessage. Up to it, a message
// over MaxMessage is read to its end and discarded before too_large, so
// that the close that follows is clean (unread bytes would make the close
// a TCP reset, which can lose the error message).
func (gw *Gateway[I]) hardLimit() int64 { return 16 * int64(gw.cfg.MaxMessage) }

// read reads the socket's next message, holding at most MaxMessage+1
// bytes of it; a longer one is discarded to its end and answered with
// too_large, which closes the connection (read then fails).
func (gw *Gateway[I]) read(ctx context.Context, s *socket) (websocket.MessageType, []byte, error) {
	typ, r, err := s.ws.Reader(ctx)
	if err != nil {
		return 0, nil, err
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(gw.cfg.MaxMessage)+1))
	if err != nil {
		return 0, nil, err
	}
	if len(b) <= gw.cfg.MaxMessage {
		return typ, b, nil
	}
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return 0, nil, err
	}
	gw.st.tooLarge.Add(1)
	s.fail(CodeTooLarge, fmt.Sprintf("a message of %d bytes: at most %d", int64(len(b))+n, gw.cfg.MaxMessage))
	return 0, nil, ErrTooLarge
}

// loopback reports whether addr ("host:port") is a loopback address.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// remoteIP is the IP address of a request's RemoteAddr, if it has one.
func remoteIP(addr string) netip.Addr {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// playerName names the n-th player's endpoint on the gateway's network:
// "json:IP#N" for a socket from IP, so that the server's per-address cap
// (server.Config.MaxPlayersPerIP) counts JSON players with the UDP ones
// of that address; "json-N" without an IP.
func playerName(n uint64, ip netip.Addr) string {
	if !ip.IsValid() {
		return "json-" + strconv.FormatUint(n, 10)
	}
	return "json:" + ip.String() + "#" + strconv.FormatUint(n, 10)
}
