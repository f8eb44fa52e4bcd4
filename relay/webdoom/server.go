package webdoom

import (
	"context"
	"errors"
	"github.com/rewindnet/rewind/internal/logsample"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// ServerConfig configures a Server.
type ServerConfig struct {
	Config
	// Dir is a WebDoom tree (client/, build/, wads/lib/, wads/manifest.json)
	// to serve; "" serves only the lobby, the relay and the demo store.
	Dir string
	// Logger receives structured logs of every drop and refusal (nil: none).
	Logger *slog.Logger
	// SendQueue bounds the messages waiting for one connection's sender (a
	// history burst is one); a connection that lets it fill is dropped.
	SendQueue int
	// WriteTimeout drops a connection whose single write takes longer.
	WriteTimeout time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Demo store limits (WebDoom's: 1 MiB a demo, 128 MiB in all, 24 h).
	// DemoTotal counts the demos and their verify traces (4 bytes an
	// entry): a trace that does not fit evicts the oldest demos, with
	// their traces.
	DemoMax, DemoTotal int
	DemoTTL            time.Duration
	// DemoUploadRate and DemoUploadBurst limit the demo and verify
	// uploads (POSTs) of one IP address: a token bucket of
	// DemoUploadBurst (60) filling at DemoUploadRate per second (1);
	// beyond, 429.
	DemoUploadRate  float64
	DemoUploadBurst int
}

// DefaultServerConfig returns WebDoom's defaults.
func DefaultServerConfig() ServerConfig {
	return ServerConfig{
		Config:       DefaultConfig(),
		SendQueue:    1024,
		WriteTimeout: 10 * time.Second,
		DemoMax:      1 << 20,
		DemoTotal:    128 << 20,
		DemoTTL:      24 * time.Hour,

		DemoUploadRate:  1,
		DemoUploadBurst: 60,
	}
}

// WebDoom's message size limits per endpoint.
const (
	webDoomLobbyLimit    = wire.LobbyMaxMessage
	webDoomGameLimit     = 64
	webDoomSpectateLimit = 64
)

// Server is rewind's stand-in for WebDoom's Node.js server: the
// lobby, the tic relay and the spectator endpoint over WebSocket, and the
// app, WAD library and demo store over HTTP, all on one handler. The
// Core is run under a lock by the goroutine an event happens on: a
// connection's reader hands it each message and writes the bundles it
// seals straight to the players' sockets, which never block (nbConn); a
// timer goroutine runs its deadlines. Each connection also has a sender
// goroutine with a bounded queue, for what does not go straight out: lobby
// messages, history bursts, spectators, and a player's bundles while
// earlier ones for it are still queued.
type Server struct {
	cfg  ServerConfig
	log  *slog.Logger
	core *Core
	// coreMu guards core, conns, armed and stopped: whoever handles an
	// event or a deadline holds it, and dispatches the actions under it
	// (so each connection's messages keep the core's order).
	coreMu  sync.Mutex
	conns   map[ConnID]*webDoomWS
	armed   time.Time     // the deadline the timer goroutine waits for (zero: none)
	stopped bool          // the timer goroutine has seen Close: no more events
	kick    chan struct{} // tells the timer goroutine of an earlier deadline
	done    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	nextID  atomic.Uint64
	mu      sync.Mutex // guards closed against wg.Add
	closed  bool
	httpSrv *http.Server
	uploads *uploadLimit      // demo and verify uploads per address
	refLog  logsample.Sampler // the HTTP side's refusals (the core has its own)
	files   *webDoomFiles
	demos   *webDoomDemoStore
}

type webDoomEventKind uint8

const (
	wdEvOpen webDoomEventKind = iota + 1
	wdEvMessage
	wdEvClosed
)

type webDoomEvent struct {
	kind  webDoomEventKind
	ep    webDoomEndpoint
	ws    *webDoomWS
	id    ConnID
	query string
	data  []byte
}

// webDoomWS is one WebSocket connection as the network layer holds it.
type webDoomWS struct {
	id     ConnID
	c      *websocket.Conn
	nb     *nbConn // its connection, whose writes never block (nil: a plain one)
	direct bool    // a game socket whose bundles may be written by dispatch itself
	queue  chan webDoomOut
	// pending counts what was queued for the sender and is not written
	// yet: dispatch writes a bundle itself only when it is 0 (under
	// coreMu), so nothing overtakes what is queued.
	pending atomic.Int64
	quit    chan struct{} // closed by the owner when the connection is gone
	sender  atomic.Bool   // the sender has stopped
}

type webDoomOut struct {
	kind    ActionKind
	data    []byte
	history History
}

// NewServer returns a running server (its core's goroutine is
// started); serve it with Serve or use it as an http.Handler.
func NewServer(cfg ServerConfig) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Config = cfg.Config.withDefaults()
	d := DefaultServerConfig()
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = d.WriteTimeout
	}
	if cfg.DemoMax <= 0 || cfg.DemoTotal <= 0 || cfg.DemoTTL <= 0 {
		cfg.DemoMax, cfg.DemoTotal, cfg.DemoTTL = d.DemoMax, d.DemoTotal, d.DemoTTL
	}
	if cfg.DemoUploadRate <= 0 || cfg.DemoUploadBurst <= 0 {
		cfg.DemoUploadRate, cfg.DemoUploadBurst = d.DemoUploadRate, d.DemoUploadBurst
	}
	if cfg.SendQueue <= 0 {
		cfg.SendQueue = 1024
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		cfg: cfg, log: log, core: NewCore(cfg.Config, log),
		conns: map[ConnID]*webDoomWS{}, kick: make(chan struct{}, 1), done: make(chan struct{}),
		files: newFiles(cfg.Dir, log),
		demos: newDemoStore(cfg.DemoMax, cfg.DemoTotal, cfg.DemoTTL, cfg.Now),
		uploads: &uploadLimit{rate: cfg.DemoUploadRate, burst: float64(cfg.DemoUploadBurst),
			now: cfg.Now, buckets: map[string]*uploadBucket{}},
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	// Timeouts and a per-IP connection cap (internal/netutil.HTTPLimits'
	// defaults; Serve applies the cap). net/http's own complaints (a
	// client's broken request, accept errors) go to the structured log,
	// never as bare stderr lines.
	s.httpSrv = netutil.HTTPLimits{}.Server(s)
	s.httpSrv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	s.wg.Add(1)
	go s.run()
	return s
}

// Stats returns a snapshot of the relay's counters (safe to call from any
// goroutine; it does not wait for the core's goroutine).
func (s *Server) Stats() Stats { return s.core.Stats() }

// Status returns a summary of the relay's state, asked of its goroutine.
func (s *Server) Status() Status {
	var st Status
	s.query(func(c *Core) { st = c.Status() })
	return st
}

// query runs fn on the core under its lock (not after Close).
func (s *Server) query(fn func(*Core)) {
	s.coreMu.Lock()
	defer s.coreMu.Unlock()
	if !s.stopped {
		fn(s.core)
	}
}

// handle runs an event through the core and dispatches its actions, on
// the calling goroutine; false means the server is closed.
func (s *Server) handle(ev webDoomEvent) bool {
	s.coreMu.Lock()
	defer s.coreMu.Unlock()
	if s.stopped {
		return false
	}
	now := s.cfg.Now()
	switch ev.kind {
	case wdEvOpen:
		s.conns[ev.ws.id] = ev.ws
		switch ev.ep {
		case wdLobby:
			s.dispatch(s.core.OpenLobby(ev.ws.id, now))
		case wdGame:
			s.dispatch(s.core.OpenGame(ev.ws.id, ev.query, now))
		case wdSpectate:
			s.dispatch(s.core.OpenSpectator(ev.ws.id, now))
		}
	case wdEvMessage:
		if ev.ep == wdLobby {
			s.dispatch(s.core.LobbyMessage(ev.id, ev.data, now))
		} else {
			s.dispatch(s.core.GameMessage(ev.id, ev.data, now))
		}
	case wdEvClosed:
		if w := s.conns[ev.id]; w != nil {
			delete(s.conns, ev.id)
			close(w.quit)
			s.dispatch(s.core.Closed(ev.id, now))
		}
	}
	// A sealed tic moves no deadline; a lobby start, say, does.
	if dl, ok := s.core.NextDeadline(); ok && (s.armed.IsZero() || dl.Before(s.armed)) {
		s.armed = dl
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
	return true
}

// run is the timer goroutine: it runs the core's deadlines (countdown,
// launch, the stall and drop sweep, lobby idling).
func (s *Server) run() {
	defer s.wg.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		s.coreMu.Lock()
		dl, ok := s.core.NextDeadline()
		s.armed = time.Time{}
		if ok {
			s.armed = dl
			timer.Reset(max(dl.Sub(s.cfg.Now()), 0))
		} else {
			timer.Stop()
		}
		s.coreMu.Unlock()
		select {
		case <-s.done:
			// Readers and writers use s.ctx, which Close cancels: that ends
			// every socket. Here only the senders are told to stop.
			s.coreMu.Lock()
			s.stopped = true
			for _, w := range s.conns {
				close(w.quit)
			}
			s.coreMu.Unlock()
			return
		case <-s.kick:
		case <-timer.C:
			s.coreMu.Lock()
			s.dispatch(s.core.Advance(s.cfg.Now()))
			s.coreMu.Unlock()
		}
	}
}

// dispatch carries out the core's actions (under coreMu): a bundle for a
// player's game socket with nothing queued before it is written at once,
// on this goroutine (the socket's writes never block); the rest goes to
// the connections' senders.
func (s *Server) dispatch(acts []Action) {
	for _, a := range acts {
		w := s.conns[a.Conn]
		if w == nil || w.sender.Load() {
			continue
		}
		if a.Kind == SendBinary && w.direct && w.pending.Load() == 0 {
			if err := w.c.Write(context.Background(), websocket.MessageBinary, a.Data); err != nil {
				s.dropConn(w, err)
			}
			continue
		}
		w.pending.Add(1)
		select {
		case w.queue <- webDoomOut{kind: a.Kind, data: a.Data, history: a.History}:
		default:
			s.dropConn(w, errSlowConsumer)
		}
	}
}

// dropConn stops sending to a connection whose write failed or whose
// queue is full, and ends it; a slow consumer is counted and logged.
func (s *Server) dropConn(w *webDoomWS, err error) {
	if errors.Is(err, errSlowConsumer) {
		s.core.stats.drop(DropSlow)
		s.log.Info("webdoom: dropped", "conn", w.id, "reason", DropSlow, "queued", len(w.queue), "err", err)
	}
	w.sender.Store(true)
	// CloseNow can wait for a close handshake under way; the caller
	// (holding coreMu) must never block, so it runs apart.
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		w.c.CloseNow()
	}()
}

// sendLoop owns the connection's writer.
func (s *Server) sendLoop(w *webDoomWS) {
	defer s.wg.Done()
	defer w.sender.Store(true)
	write := func(typ websocket.MessageType, b []byte) bool {
		ctx, cancel := context.WithTimeout(s.ctx, s.cfg.WriteTimeout)
		defer cancel()
		var err error
		if w.nb != nil {
			err = w.nb.wait(ctx) // one message at a time in the backlog
		}
		if err == nil {
			err = w.c.Write(ctx, typ, b)
		}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errSlowConsumer) {
				s.core.stats.drop(DropSlow)
				s.log.Info("webdoom: dropped", "conn", w.id, "reason", DropSlow, "err", err)
			}
			w.c.CloseNow()
			return false
		}
		return true
	}
	for {
		select {
		case <-w.quit:
			return
		case <-s.done:
			return
		case o := <-w.queue:
			switch o.kind {
			case SendText:
				if !write(websocket.MessageText, o.data) {
					return
				}
			case SendBinary:
				if !write(websocket.MessageBinary, o.data) {
					return
				}
			case SendHistory:
				for i := 0; i < o.history.Len(); i++ {
					if !write(websocket.MessageBinary, o.history.Bundle(i)) {
						return
					}
				}
			case Close:
				w.c.Close(websocket.StatusNormalClosure, "")
				return
			case Terminate:
				w.c.CloseNow()
				return
			}
			w.pending.Add(-1)
		}
	}
}

// ServeHTTP routes WebSocket upgrades to the three endpoints and everything
// else to the app, the WAD library and the demo store (the server
// serves no metrics: Stats and Status are there for an exporter on a
// listener of its own, as `rewind webdoom --metrics-http ADDR` runs).
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if !wdIsUpgrade(r) {
		s.serveHTTP(rw, r)
		return
	}
	var ep webDoomEndpoint
	limit := int64(webDoomGameLimit)
	switch r.URL.EscapedPath() {
	case "/ws/lobby":
		ep, limit = wdLobby, webDoomLobbyLimit
	case "/ws/game":
		ep = wdGame
	case "/ws/spectate":
		ep, limit = wdSpectate, webDoomSpectateLimit
	default:
		// WebDoom destroys the socket: no HTTP answer at all.
		s.core.stats.refuse(RefuseBadPath)
		s.refLog.Log(s.log, s.cfg.Now(), "webdoom: refused", "reason", RefuseBadPath, "path", r.URL.EscapedPath(), "remote", r.RemoteAddr)
		if conn, _, err := http.NewResponseController(rw).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	// A frame declaring more than the limit is refused at once. A game
	// socket's writes never block (nbConn): its bundles go out on the
	// goroutine that sealed them.
	hw := netutil.GuardWebSocket(rw, limit, nil)
	var nbh *nbHijacker
	if ep == wdGame {
		nbh = &nbHijacker{ResponseWriter: hw, max: s.cfg.SendQueue * 64}
		hw = nbh
	}
	c, err := websocket.Accept(hw, r, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // WebDoom accepts any origin (a LAN game)
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		return // Accept answered the bad handshake
	}
	c.SetReadLimit(limit)
	w := &webDoomWS{
		id: ConnID(s.nextID.Add(1)), c: c,
		queue: make(chan webDoomOut, s.cfg.SendQueue), quit: make(chan struct{}),
	}
	if nbh != nil && nbh.nb != nil {
		w.nb, w.direct = nbh.nb, nbh.nb.raw != nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.CloseNow()
		return
	}
	s.wg.Add(2)
	s.mu.Unlock()
	go s.sendLoop(w)
	defer s.wg.Done()
	defer c.CloseNow()
	if !s.handle(webDoomEvent{kind: wdEvOpen, ep: ep, ws: w, query: r.URL.RawQuery}) {
		return
	}
	if ep == wdSpectate {
		s.discardLoop(w)
	} else {
		s.readLoop(w, ep)
	}
	s.handle(webDoomEvent{kind: wdEvClosed, id: w.id})
}

// readLoop hands each message of a lobby or game socket to the core.
func (s *Server) readLoop(w *webDoomWS, ep webDoomEndpoint) {
	for {
		_, data, err := w.c.Read(s.ctx)
		if err != nil {
			s.readEnded(w, err)
			return
		}
		if !s.handle(webDoomEvent{kind: wdEvMessage, ep: ep, id: w.id, data: data}) {
			return
		}
	}
}

// discardLoop is the spectator's reader: it reads only so that control
// frames are answered and the size limit is enforced, and discards every
// data message. It has no way to hand anything to the core.
func (s *Server) discardLoop(w *webDoomWS) {
	var start time.Time
	count := 0
	for {
		_, r, err := w.c.Reader(s.ctx)
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		if err != nil {
			s.readEnded(w, err)
			return
		}
		now := s.cfg.Now()
		if count == 0 || now.Sub(start) >= s.cfg.RateWindow {
			start, count = now, 0
		}
		if count++; count > s.cfg.RateCap {
			s.core.stats.refuse(RefuseRateCap)
			s.refLog.Log(s.log, s.cfg.Now(), "webdoom: refused", "reason", RefuseRateCap, "conn", w.id, "endpoint", "spectate")
			return
		}
	}
}

func (s *Server) readEnded(w *webDoomWS, err error) {
	if errors.Is(err, netutil.ErrFrameTooLarge) || strings.Contains(err.Error(), "read limited at") {
		s.core.stats.drop(DropOversize)
		s.log.Info("webdoom: dropped", "conn", w.id, "reason", DropOversize)
	}
}

func wdIsUpgrade(r *http.Request) bool {
	if r.Header.Get("Upgrade") == "" {
		return false
	}
	for _, v := range r.Header.Values("Connection") {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "upgrade") {
				return true
			}
		}
	}
	return false
}

// Serve serves HTTP and the WebSocket endpoints on ln until Close.
func (s *Server) Serve(ln net.Listener) error {
	err := s.httpSrv.Serve(netutil.HTTPLimits{}.Listener(ln))
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops serving, ends every connection without ceremony and waits
// for every goroutine the server started.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	s.closed = true
	s.mu.Unlock()
	s.httpSrv.Close()
	close(s.done)
	s.cancel()
	s.wg.Wait()
	s.files.close()
	return nil
}
