package host

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/netip"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/matchhost"
	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
)

// Options configures a Multi. The zero value hosts with every
// default.
type Options struct {
	// HostOptions configures every match as it does a rewind.Host's:
	// Server for each match, UDP for the socket ListenUDP opens, Log for
	// events (each room's lines carry room=CODE).
	rewind.HostOptions
	// MaxMatches caps the rooms open at once, each with its match
	// (default 64). Open fails with ErrTooManyMatches beyond it.
	MaxMatches int
	// Workers is how many goroutines run the matches' updates (default
	// runtime.GOMAXPROCS(0): one per core), however many matches there
	// are.
	Workers int
	// TickPhases is at how many evenly spaced instants a tick the rooms'
	// ticks fall (default 8; negative: each room ticks from the moment
	// its match started): a match that starts takes the one with the
	// fewest started matches (of those, the latest at or before its
	// start), so it ticks at the same instants as the other rooms of its
	// phase, and matches that start together spread over the phases.
	// With an even count of 8 or more, every other instant takes matches only once
	// the others hold 8 each (phaseFill): a host of few matches wakes at
	// half the instants, a host of many spreads them over all.
	// A worker then wakes once for all the rooms of a phase, not once
	// per room, and sends their datagrams together; the rooms of a phase
	// run one after the other, so the last starts its tick later (about
	// the rooms per phase ÷ Workers × a room's update).
	TickPhases int
	// QueueLen is how many received datagrams wait per match before
	// further ones for it are dropped (default 128).
	QueueLen int
	// PeersPerAddr caps the UDP peers one IP address (IPv6: one /64)
	// holds across every room at once: a new one beyond is refused full
	// (rewind.ReasonFull), whichever room its hello names (default 0: no
	// cap). WebRTC peers are not counted (the relay caps them).
	PeersPerAddr int
	// FreeEnded closes a room once its match has ended (its last player
	// left), freeing its slot; by default a room starts a new match for
	// the next player, as a rewind.Host does.
	FreeEnded bool
	// RoomOf, if set, names the room of a peer by its address (a
	// relay's player: relay/roomclient.RoomOfPeer), before any hello: a peer it
	// names a room for goes to that room (or, if no room has the code,
	// is refused rewind.ReasonNoRoom), whatever its hello says; for a peer it
	// returns "" for, the hello decides. Default: the hello decides.
	RoomOf func(transport.Addr) string
	// OnClose, if set, is told the code of every room that closes
	// (CloseRoom, FreeEnded, a failed update, Close), after it closed,
	// from the goroutine that closed it.
	OnClose func(code string)
	// SocketReader has ListenUDP's socket read by its own reader
	// goroutine as datagrams arrive, as before issue 33. By default, when
	// inputs wait for the tick (no stall policy), the socket is drained
	// (udp.Config.Drained): kept out of the Go runtime's poller so that
	// no datagram wakes a thread, and read by a worker whenever it is
	// about to run rooms (so at each tick phase with a room due, just
	// before the phase's rooms run), otherwise at a phase instant at
	// least every 17 ms (a tick at 60 Hz), and at every phase for a
	// tick after a drain that found 32 datagrams a phase or more: a
	// host of few matches wakes about once a tick per match, not at
	// every phase. A
	// ping, a hello or a handshake is answered at the next drain, up to
	// 17 ms after it arrived, and every datagram carries the time it
	// arrived (the kernel's stamp), so input margins, acknowledgement
	// round trips and the ping players measure (the pong leaves the wait
	// out) do not grow.
	SocketReader bool
	// Clock gives the time the rooms run at: every update, a datagram's
	// arrival, a tick's lateness (default transport.WallClock: the one
	// place the runtime reads the wall clock). Run still waits in real
	// time; a test in made-up time runs it in a testing/synctest bubble.
	Clock transport.Clock
}

func (o Options) withDefaults() Options {
	if o.MaxMatches <= 0 {
		o.MaxMatches = 64
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.QueueLen <= 0 {
		o.QueueLen = 128
	}
	if o.TickPhases == 0 {
		o.TickPhases = defaultTickPhases
	}
	if o.Clock == nil {
		o.Clock = transport.WallClock{}
	}
	return o
}

// Multi hosts many matches of one game over one server-side Conn (one
// UDP socket: ListenUDP), a match per room code. A player chooses the
// match by the room code in its hello (rewind.ClientConfig.Room; rewind
// play --connect HOST:PORT --room CODE); a hello without a code goes to
// the first room opened, a hello with a code no room has is refused
// (rewind.ReasonNoRoom). Every later datagram of a peer goes to the match
// its hello chose. Each room runs matches as a rewind.Host does (a new one
// when the last player has left, unless FreeEnded), with its own server,
// history and players; all share the socket, the timers and the logger.
//
// Run drives every match from one dispatcher goroutine, which reads the
// socket, and Workers goroutines that keep the matches' deadlines and run
// their updates: not a goroutine per match. Open, CloseRoom, Stats
// and Rooms may be called from any goroutine meanwhile.
type Multi[I any] struct {
	g       rewind.Game[I]
	cfg     server.Config
	opts    Options
	conn    transport.Conn
	log     *slog.Logger
	clock   transport.Clock // opts.Clock
	period  time.Duration
	idle    time.Duration // a peer's route is forgotten after this silence
	batcher transport.Batcher
	// lazyInputs: the matches' inputs may wait in their queues for the
	// next tick (no stall policy: an input never makes a tick run).
	lazyInputs bool
	// drainer is the Conn when its socket waits to be drained
	// (transport.Drainer): the workers read it at the tick phases, which
	// fall at phases instants a period from epoch.
	drainer transport.Drainer
	// fineSleep, when not nil, is how the leading worker sleeps the last
	// millisecond to its deadline (a host of ListenUDP's, on Linux: real
	// time; a host in made-up time waits on its Go timer alone).
	fineSleep func(time.Duration)
	epoch     time.Time
	phases    int
	// phaseRooms counts the started matches on each tick phase, with
	// TickPhases > 0 and no TickOrigin of the caller's (nil otherwise):
	// a match that starts takes the phase with the fewest (startPhase).
	// phaseMu guards it and the rooms' phase.
	phaseMu    sync.Mutex
	phaseRooms []int

	sendMu sync.Mutex // serializes sends on conn outside a batch

	mu          sync.Mutex
	rooms       map[string]*roomMatch[I]
	order       []*roomMatch[I] // in the order opened; order[0] takes hellos without a code
	byAddr      map[transport.Addr]route[I]
	perAddr     map[string]int  // routes per IP address or IPv6 /64 (peraddr.go)
	fresh       []*roomMatch[I] // opened since the dispatcher last looked
	closed      bool
	gone        hostTotals // the sums of closed rooms
	noRoom      uint64     // hellos refused: no room has the code
	unrouted    uint64     // datagrams of unknown peers that were not hellos
	dropped     uint64     // datagrams dropped: a match's queue was full
	addrRefused uint64     // new peers refused: their address held PeersPerAddr
	wake        chan struct{}
	lag         lagHistogram
	startLag    lagHistogram // the updates' start alone (TickStartLag)
	updates     atomic.Uint64
}

// route is where a peer's datagrams go, and when it was last heard.
type route[I any] struct {
	m    *roomMatch[I]
	last int64 // unix nanos
}

// hostTotals are the sums of closed rooms' matches.
type hostTotals struct {
	matches   uint64
	total     server.Stats
	refusedBy [rewind.ReasonCookie + 1]uint64
}

// roomMatch is one room of a Multi: its code, its matches (a
// matchhost.Host over its own Conn) and the scheduler's bookkeeping.
type roomMatch[I any] struct {
	code string
	sub  *subConn

	mu sync.Mutex // guards m: a worker updates it, Stats reads it
	m  matchhost.Host[I]

	// Written by the worker that ran the update, read by it as it hands
	// the room back to the scheduler.
	next    time.Time
	ended   bool  // the match ended (FreeEnded closes the room)
	err     error // the update failed
	ticking bool  // the match runs its ticks: its inputs may wait for them
	// The update's start was due (a tick's time had come), that
	// lateness, and when the update ended (its sends then wait for the
	// worker's batch).
	due  bool
	late time.Duration
	ran  time.Time

	// Guarded by the scheduler's mu (Run's).
	deadline time.Time // when the room is due next (zero: only a datagram)
	index    int       // in the deadline heap, -1 when not in it
	busy     bool      // being run by a worker
	queued   bool      // due at once: in the scheduler's ready rooms
	pending  bool      // a datagram came while busy: run again after

	phase int // the tick phase its match took (startPhase), -1 none; guarded by the Multi's phaseMu

	lazy   atomic.Bool // ticking, as of the last update: inputs wait for the tick (read by the dispatcher)
	closed atomic.Bool
}

// NewMulti hosts matches of g over conn, a server-side Conn, which the
// Multi owns from now on, also when NewMulti fails. It opens no
// room: Open does.
func NewMulti[I any](g rewind.Game[I], conn transport.Conn, opts Options) (*Multi[I], error) {
	opts = opts.withDefaults()
	cfg, log, err := matchhost.Setup(g, opts.Server, opts.Log)
	if err != nil {
		conn.Close()
		return nil, err
	}
	idle := cfg.PlayerTimeout
	if idle <= 0 {
		idle = 5 * time.Second
	}
	h := &Multi[I]{
		g: g, cfg: cfg, opts: opts, conn: conn, log: log, clock: opts.Clock, period: matchhost.TickPeriod(g),
		idle:    2 * idle,
		rooms:   make(map[string]*roomMatch[I]),
		byAddr:  make(map[transport.Addr]route[I]),
		perAddr: make(map[string]int),
		wake:    make(chan struct{}, 1),
	}
	h.batcher, _ = conn.(transport.Batcher)
	h.epoch, h.phases = h.clock.Now(), max(opts.TickPhases, 1)
	if opts.TickPhases < 0 {
		h.phases = 4 // rooms tick at their own instants: the socket is read at 4 a tick, and before rooms run
	}
	if opts.TickPhases > 0 && h.cfg.TickOrigin == nil {
		h.phaseRooms = make([]int, h.phases) // each room's match takes a phase (startPhase)
	}
	if d, ok := conn.(transport.Drainer); ok && d.Draining() {
		h.drainer = d
	}
	h.lazyInputs = cfg.Stall.Kind == server.StallNever
	return h, nil
}

// ListenUDP opens a UDP socket on addr ("127.0.0.1:0" picks a free
// port; UDPAddr says which) and hosts many matches of g on it (see
// NewMulti). The socket takes up to MaxMatches × the server's
// MaxPlayers sessions unless opts.UDP says otherwise.
func ListenUDP[I any](g rewind.Game[I], addr string, opts Options) (*Multi[I], error) {
	opts = opts.withDefaults()
	ucfg := opts.UDP
	if ucfg.IdleTimeout <= 0 && opts.Server.PlayerTimeout > 0 {
		ucfg.IdleTimeout = opts.Server.PlayerTimeout
	}
	if ucfg.MaxSessions <= 0 {
		ucfg.MaxSessions = max(1024, opts.MaxMatches*max(opts.Server.MaxPlayers, 16))
	}
	if ucfg.QueueLen <= 0 {
		ucfg.QueueLen = max(1024, 16*opts.MaxMatches)
	}
	ucfg.ProveExplicitly = true // the matches prove the players they admit
	if !opts.SocketReader && opts.Server.Stall.Kind == server.StallNever {
		ucfg.Drained = true
		if ucfg.ReadBuffer <= 0 {
			ucfg.ReadBuffer = drainedReadBuffer
		}
	}
	sock, err := udp.Listen(addr, ucfg)
	if err != nil {
		return nil, fmt.Errorf("rewind: host: %w", err)
	}
	h, err := NewMulti(g, sock, opts)
	if err != nil {
		return nil, err
	}
	h.fineSleep = fineSleep
	h.log.Info("listening", "udp", sock.UDPAddr().String(), "max_matches", opts.MaxMatches, "workers", opts.Workers)
	return h, nil
}

// Conn returns the Conn the matches share (the Multi owns it).
func (h *Multi[I]) Conn() transport.Conn { return h.conn }

// UDPAddr returns the UDP socket's address, and false without one.
func (h *Multi[I]) UDPAddr() (netip.AddrPort, bool) {
	for _, c := range matchhost.Members(h.conn) {
		if u, ok := c.(interface{ UDPAddr() netip.AddrPort }); ok {
			return u.UDPAddr(), true
		}
	}
	return netip.AddrPort{}, false
}

// Open opens a room with its match and returns its code: code if given
// (6 to 12 characters of roomcode.Alphabet, upper-cased; a hello names
// only 6-character codes, so longer ones are reached through
// Options.RoomOf), else a random free one of 6. It fails with
// ErrBadRoom, ErrRoomTaken, ErrTooManyMatches, or rewind.ErrClosed once
// the Multi is closed.
func (h *Multi[I]) Open(code string) (string, error) {
	if code != "" {
		var ok bool
		if code, ok = normalRoom(code); !ok {
			return "", fmt.Errorf("rewind: room %q: %w", code, ErrBadRoom)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return "", fmt.Errorf("rewind: open room: %w", rewind.ErrClosed)
	case len(h.rooms) >= h.opts.MaxMatches:
		return "", fmt.Errorf("rewind: open room (%d open): %w", len(h.rooms), ErrTooManyMatches)
	case code != "" && h.rooms[code] != nil:
		return "", fmt.Errorf("rewind: room %s: %w", code, ErrRoomTaken)
	}
	for code == "" || h.rooms[code] != nil {
		code = randomRoom()
	}
	r := &roomMatch[I]{code: code, index: -1, phase: -1}
	r.sub = newSubConn(h, h.opts.QueueLen)
	cfg := h.cfg
	if h.phaseRooms != nil {
		cfg.TickOrigin = func(now time.Time) time.Time { return h.startPhase(r, now) }
	}
	if err := r.m.Init(h.g, cfg, r.sub, h.log.With("room", code)); err != nil {
		return "", err
	}
	h.rooms[code] = r
	h.order = append(h.order, r)
	h.fresh = append(h.fresh, r)
	h.signal()
	h.log.Info("room opened", "room", code, "rooms", len(h.rooms))
	return code, nil
}

// CloseRoom says goodbye to the players of the room's match and closes
// the room, freeing its slot. It fails with ErrNoRoom if no room has the
// code.
func (h *Multi[I]) CloseRoom(code string) error {
	code, _ = normalRoom(code)
	h.mu.Lock()
	r := h.rooms[code]
	h.mu.Unlock()
	if r == nil {
		return fmt.Errorf("rewind: room %q: %w", code, ErrNoRoom)
	}
	h.closeRoom(r, codec.ReasonShutdown)
	return nil
}

// closeRoom ends r's match with a goodbye for reason and removes r.
func (h *Multi[I]) closeRoom(r *roomMatch[I], reason rewind.Reason) {
	if r.closed.Swap(true) {
		return
	}
	r.mu.Lock()
	if !r.m.Server.Done() { // End said goodbye to everyone already
		_ = r.m.Server.Goodbye(reason)
	}
	matches, _, _, total := r.m.Stats()
	refused := r.m.Tap.Total
	r.mu.Unlock()
	h.mu.Lock()
	defer func() {
		h.mu.Unlock()
		if h.opts.OnClose != nil {
			h.opts.OnClose(r.code)
		}
	}()
	h.releasePhase(r)
	delete(h.rooms, r.code)
	h.order = slices.DeleteFunc(h.order, func(x *roomMatch[I]) bool { return x == r })
	for a, rt := range h.byAddr {
		if rt.m == r {
			h.dropRoute(a)
		}
	}
	h.gone.matches += matches
	h.gone.total = matchhost.AddStats(h.gone.total, total)
	for i, n := range refused {
		h.gone.refusedBy[i] += n
	}
	h.log.Info("room closed", "room", r.code, "matches", matches, "rooms", len(h.rooms))
}

// Rooms returns the codes of the open rooms, in the order opened.
func (h *Multi[I]) Rooms() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.order))
	for i, r := range h.order {
		out[i] = r.code
	}
	return out
}

// Stats is what a Multi has done.
type Stats struct {
	// Rooms is the number of open rooms, Running the number of their
	// matches that have started, Players the players in them.
	Rooms, Running, Players int
	// Matches counts matches started in every room, closed ones included.
	Matches uint64
	// Total sums every match's counters, closed rooms' included; its Tick
	// is the number of ticks run and its Players the players now.
	Total server.Stats
	// UDP is the socket's counters (zero without one).
	UDP udp.Stats
	// RefusedBy counts the hellos refused by the matches, by reason
	// (indexed by rewind.Reason, as rewind.HostStats.RefusedBy).
	RefusedBy [rewind.ReasonCookie + 1]uint64
	// NoRoom counts hellos refused because no room had their code.
	NoRoom uint64
	// Unrouted counts datagrams of peers no match knows that were not a
	// hello (dropped).
	Unrouted uint64
	// QueueDropped counts datagrams dropped because their match's queue
	// was full (it fell behind).
	QueueDropped uint64
	// AddrRefused counts new peers refused full because their address
	// held Options.PeersPerAddr peers already.
	AddrRefused uint64
	// Routes is the number of peers whose match is known.
	Routes int
	// Updates counts the rooms' updates run (each handles the room's
	// waiting datagrams and runs its due ticks): about one per room and
	// tick while players only send inputs.
	Updates uint64
	// TopPlayers holds the player counts of the (up to) 5 fullest
	// running matches, largest first: a bounded view of the matches for
	// metrics, never a figure per room code.
	TopPlayers []int
}

// Stats returns the host's counters. It is safe to call while Run runs.
func (h *Multi[I]) Stats() Stats {
	h.mu.Lock()
	rooms := slices.Clone(h.order)
	s := Stats{
		Rooms: len(h.rooms), Matches: h.gone.matches, Total: h.gone.total, RefusedBy: h.gone.refusedBy,
		NoRoom: h.noRoom, Unrouted: h.unrouted, QueueDropped: h.dropped, AddrRefused: h.addrRefused, Routes: len(h.byAddr),
		Updates: h.updates.Load(),
	}
	h.mu.Unlock()
	s.Total.Players = 0
	for _, r := range rooms {
		r.mu.Lock()
		matches, running, cur, total := r.m.Stats()
		refused := r.m.Tap.Total
		r.mu.Unlock()
		s.Matches += matches
		s.Total = matchhost.AddStats(s.Total, total)
		s.Players += cur.Players
		if running {
			s.Running++
			s.TopPlayers = append(s.TopPlayers, cur.Players)
		}
		for i, n := range refused {
			s.RefusedBy[i] += n
		}
	}
	s.Total.Players = s.Players
	slices.SortFunc(s.TopPlayers, func(a, b int) int { return b - a })
	s.TopPlayers = s.TopPlayers[:min(len(s.TopPlayers), 5)]
	for _, c := range matchhost.Members(h.conn) {
		if u, ok := c.(interface{ Stats() udp.Stats }); ok {
			s.UDP = u.Stats()
		}
	}
	return s
}

// RoomStats returns the counters of the room with the code (as a
// rewind.Host's), and false if no room has it.
func (h *Multi[I]) RoomStats(code string) (rewind.HostStats, bool) {
	code, _ = normalRoom(code)
	h.mu.Lock()
	r := h.rooms[code]
	h.mu.Unlock()
	if r == nil {
		return rewind.HostStats{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var s rewind.HostStats
	s.Matches, s.Running, s.Match, s.Total = r.m.Stats()
	s.RefusedBy = r.m.Tap.Total
	return s, true
}

// TickLag returns the histogram of how late the matches' updates started
// after their ticks were due, plus how long their datagrams then waited
// for the rest of their worker's batch, over every update of a running
// match since the Multi was made: the jitter of the ticks' timing.
func (h *Multi[I]) TickLag() Lag { return h.lag.snapshot() }

// TickStartLag returns the histogram of how late the matches' updates
// started after their ticks were due, alone: TickLag without the wait for
// the rest of the batch. What TickLag has beyond it is the cost of
// batching a worker's rooms into one send.
func (h *Multi[I]) TickStartLag() Lag { return h.startLag.snapshot() }

// TickPhase returns the time between two tick phase instants
// (Options.TickPhases): a tick's period over the phases (over 4 with
// TickPhases negative, the instants the socket is drained at then). A
// room whose tick starts more than a phase late delays the next phase's
// rooms.
func (h *Multi[I]) TickPhase() time.Duration { return h.period / time.Duration(h.phases) }

// Close says goodbye to the players of every match and closes the Conn.
// Run must have returned (or never run). Closing a closed Multi does
// nothing.
func (h *Multi[I]) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	rooms := slices.Clone(h.order)
	h.mu.Unlock()
	for _, r := range rooms {
		h.closeRoom(r, codec.ReasonShutdown)
	}
	h.log.Info("closing", "rooms", len(rooms))
	return h.conn.Close()
}

// signal wakes the dispatcher (a room opened).
func (h *Multi[I]) signal() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// normalRoom upper-cases code and reports whether it is 6 to 12
// characters of the room-code alphabet (package relay/roomcode).
func normalRoom(code string) (string, bool) {
	b := []byte(code)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	code = string(b)
	return code, roomcode.ValidLen(code)
}

// randomRoom draws a room code of roomcode.Len with crypto/rand.
func randomRoom() string {
	code, err := roomcode.New(rand.Reader, roomcode.Len)
	if err != nil {
		panic("rewind: drawing a room code: " + err.Error()) // crypto/rand never fails
	}
	return code
}
