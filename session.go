package rewind

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/migrate"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// Options configures a Session. The zero value plays with every default.
type Options struct {
	// Server configures the server of a single-player session.
	Server ServerConfig
	// Client configures the session's client.
	Client ClientConfig
	// OnUpdate, if set, is called at the end of every Update that did not
	// fail (under Run: when a datagram arrives and at least every quarter
	// of a tick) with Update's time and the client's counters. It runs
	// outside the session's lock, on the goroutine that calls Update, so
	// it may call the session's methods (State, Stats, Close). It is the
	// session's status and stop hook: a status line every so often, a
	// check of the verified tick; an error it returns becomes Update's, so
	// Run stops and returns it (a sentinel of the caller's, found again
	// with errors.Is).
	OnUpdate func(now time.Time, st Stats) error
}

// State says where a session is in its match (Session.State).
type State uint8

// Session states, in the order a session goes through them.
const (
	// Connecting: the client says hello; the server has not welcomed it.
	Connecting State = iota
	// Loading: welcomed; the match's world is on its way (a player who
	// joins a running match receives it before its first tick).
	Loading
	// Playing: in the match; ticks are predicted and verified.
	Playing
	// Ended: the session was closed, or the match ended it (refused,
	// timed out, dropped: Update failed, and Run returned the error). An
	// error of Options.OnUpdate stops Run but does not end the session.
	Ended
	// Migrating: the session lost its server and moves to the match's
	// next host (a room joined with rooms.JoinOptions.HostMigration); it
	// then plays again (Loading, Playing).
	Migrating
)

// String names the state.
func (st State) String() string {
	switch st {
	case Connecting:
		return "connecting"
	case Loading:
		return "loading"
	case Playing:
		return "playing"
	case Ended:
		return "ended"
	case Migrating:
		return "migrating"
	}
	return fmt.Sprintf("State(%d)", uint8(st))
}

// Session is one player's seat in a match: a client, and for a
// single-player session the server too, over an in-process loopback. It is
// driven by Update (made-up or real time) or by Run (real time, in a loop
// that waits on the network and a ticker). A Session is safe for use by
// several goroutines: Run's loop, a game's view (View, ViewBetween, which
// draw from copies and never wait for Update) and whoever reads Stats or
// State.
type Session[I any] struct {
	mu       sync.Mutex
	srv      migrate.Server // a *server.Server[I], or nil (migrate.Server says why an interface)
	cli      *client.Client[I]
	conns    []transport.Conn
	period   time.Duration
	closed   bool
	failed   bool
	ownConn  bool
	onUpdate func(now time.Time, st Stats) error

	// me and state mirror the client's player id (-1 before the welcome)
	// and State, for the lock-free Player and State: they are refreshed
	// after every Update and before every call of the input function.
	me    atomic.Int32
	state atomic.Uint32

	view     view         // the copies the view draws from (view.go)
	verified verifiedView // the verified world's copies (verified_view.go)

	// Host migration (migrate.go): the game and client settings a new
	// client is made with, the input it is given, the state.
	g       Game[I]
	ccfg    ClientConfig
	input   I
	inputFn func(tick uint32) I
	mig     migration[I]
	lost    atomic.Bool
	// settled says the game is the one the match plays (with
	// ClientConfig.HostSettings, once built from the welcome's settings).
	settled bool
	played  atomic.Pointer[gameBox[I]] // s.g, for the lock-free Game
}

// Play starts a single-player session of g: a server and a client in this
// process, over an in-process loopback network. It is the same match code
// as online play: the client predicts, the server verifies, and every
// datagram goes through the transport interface.
func Play[I any](g Game[I], opts Options) (*Session[I], error) {
	schema := world.NewSchema()
	if err := g.Register(schema); err != nil {
		return nil, fmt.Errorf("rewind: register: %w", err)
	}
	net := transport.NewLoopback()
	sconn, err := net.Listen("server")
	if err != nil {
		return nil, fmt.Errorf("rewind: loopback: %w", err)
	}
	cconn, err := net.Dial("player", "server")
	if err != nil {
		sconn.Close()
		return nil, fmt.Errorf("rewind: loopback: %w", err)
	}
	scfg := opts.Server
	scfg.Schema = schema
	scfg.StartPlayers = 1
	srv, err := server.New(g, sconn, scfg)
	if err != nil {
		sconn.Close()
		cconn.Close()
		return nil, fmt.Errorf("rewind: %w", err)
	}
	ccfg := opts.Client
	ccfg.Schema = schema
	cli, err := client.New(g, cconn, ccfg)
	if err != nil {
		sconn.Close()
		cconn.Close()
		return nil, fmt.Errorf("rewind: %w", err)
	}
	return newSession(g, migrate.Server(srv), cli, []transport.Conn{sconn, cconn}, tickPeriod(g), true, opts), nil
}

// Connect starts a session of g as a client of the server at the other end
// of conn (a client-side Conn: its RemoteAddr is the server). The session
// does not close conn.
func Connect[I any](g Game[I], conn Conn, opts Options) (*Session[I], error) {
	cli, err := client.New(g, conn, opts.Client)
	if err != nil {
		return nil, fmt.Errorf("rewind: %w", err)
	}
	return newSession(g, nil, cli, []transport.Conn{conn}, tickPeriod(g), false, opts), nil
}

func newSession[I any](g Game[I], srv migrate.Server, cli *client.Client[I], conns []transport.Conn, period time.Duration, own bool, opts Options) *Session[I] {
	s := &Session[I]{srv: srv, cli: cli, conns: conns, period: period, ownConn: own, onUpdate: opts.OnUpdate,
		g: g, ccfg: opts.Client}
	s.played.Store(&gameBox[I]{g})
	s.me.Store(-1)
	return s
}

// takeGame makes the game the client built from the host's settings the
// session's, once the welcome came: migrations and the tick period follow
// it. The caller holds s.mu.
func (s *Session[I]) takeGame() {
	if _, welcomed := s.cli.Player(); !welcomed && !s.cli.Playing() { // a spectator has no id
		return
	}
	s.g, s.period, s.settled = s.cli.Game(), tickPeriod(s.cli.Game()), true
	s.played.Store(&gameBox[I]{s.g})
}

// Game returns the game the session plays: the one it was given, or with
// ClientConfig.HostSettings the one built from the host's match settings
// once the welcome came (a view draws with its handles). It does not
// wait for Update (a Migrator may call it).
func (s *Session[I]) Game() Game[I] { return s.played.Load().g }

// gameBox holds a Game for an atomic.Pointer.
type gameBox[I any] struct{ g Game[I] }

// Settings returns the host's match settings from the welcome (nil before
// it, or for a game without settings).
func (s *Session[I]) Settings() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.Settings()
}

func tickPeriod(g any) time.Duration {
	return time.Second / time.Duration(game.RateOf(g))
}

// Update runs the session at now: the local server (if any) handles what
// arrived and runs the ticks due, then the client does. It returns the
// first error of either, or of Options.OnUpdate.
func (s *Session[I]) Update(now time.Time) error {
	s.mu.Lock()
	err := s.update(now)
	if err != nil && !s.closed {
		s.failed = true
	}
	s.refresh()
	if err == nil && s.view.on.Load() {
		s.publish(now)
	}
	if err == nil && s.verified.on.Load() {
		s.publishVerified()
	}
	var st Stats
	if err == nil && s.onUpdate != nil {
		st = s.cli.Stats()
	}
	s.mu.Unlock()
	if err == nil && s.onUpdate != nil {
		err = s.onUpdate(now, st)
	}
	return err
}

func (s *Session[I]) update(now time.Time) error {
	if s.closed {
		return client.ErrClosed
	}
	if s.mig.running {
		if err := s.finishMigration(); err != nil || s.mig.running {
			return err
		}
	}
	if s.srv != nil {
		if err := s.srv.Update(now); err != nil {
			return err
		}
	}
	err := s.cli.Update(now)
	if s.ccfg.HostSettings && !s.settled {
		s.takeGame()
	}
	if s.mig.ownPending {
		if id, ok := s.cli.Player(); ok {
			s.srv.SetOwnPlayer(id, true)
			s.mig.ownPending = false
		}
	}
	if err != nil {
		if s.startMigration(err) || s.rejoinRefused(err) {
			return nil
		}
		if s.mig.whyNot != "" {
			return fmt.Errorf("%w (no host migration: %s)", err, s.mig.whyNot)
		}
		return err
	}
	if s.startMigration(nil) {
		return nil
	}
	if s.srv != nil {
		// The client's inputs arrived during its Update (loopback): let
		// the server see them now rather than a step later.
		return s.srv.Update(now)
	}
	return nil
}

// refresh copies the client's player id and state into the atomics that
// Player and State read. The caller holds s.mu.
func (s *Session[I]) refresh() {
	st := Connecting
	me, welcomed := s.cli.Player()
	switch {
	case s.closed || s.failed:
		st = Ended
	case s.mig.running:
		st = Migrating
	case s.cli.Playing():
		st = Playing
	case welcomed:
		st = Loading
	}
	if welcomed {
		s.me.Store(int32(me))
	}
	s.state.Store(uint32(st))
}

// SetInput sets the input this player applies from the next predicted tick
// on, until changed.
func (s *Session[I]) SetInput(in I) {
	s.mu.Lock()
	s.input = in
	s.cli.SetInput(in)
	s.mu.Unlock()
}

// SetInputFunc makes the session ask fn for this player's input of every
// tick it predicts. fn runs inside Update, with the session locked: of
// the session's methods it may call only the lock-free Player and State.
func (s *Session[I]) SetInputFunc(fn func(tick uint32) I) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fn == nil {
		s.inputFn = nil
		s.cli.SetInputFunc(nil)
		return
	}
	s.inputFn = func(tick uint32) I {
		s.refresh() // the welcome may have come in this very Update
		return fn(tick)
	}
	s.cli.SetInputFunc(s.inputFn)
}

// Player returns this player's id and whether the server has welcomed
// it. It does not lock: it may be called from anywhere, the input
// function included.
func (s *Session[I]) Player() (PlayerID, bool) {
	me := s.me.Load()
	if me < 0 {
		return 0, false
	}
	return PlayerID(me), true
}

// State returns where the session is: Connecting, Loading, Playing or
// Ended, as of its last Update. It does not lock: it may be called from
// anywhere, the input function included.
func (s *Session[I]) State() State { return State(s.state.Load()) }

// Addrs returns the addresses of the session's connection as its
// transport names them (for a UDP session, "ip:port" of the socket and of
// the server), for logs.
func (s *Session[I]) Addrs() (local, remote string) {
	c := s.conns[len(s.conns)-1]
	return string(c.LocalAddr()), string(c.RemoteAddr())
}

// Cookie returns the cookie with which a new session rejoins as this
// session's player (Options.Client.Cookie), and whether the server has
// welcomed it yet. The server keeps only the cookie's SHA-256.
func (s *Session[I]) Cookie() ([16]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.Cookie()
}

// Stats returns the client's counters: verified and predicted tick, the
// verified hash, ping, rollbacks, desyncs, bytes.
func (s *Session[I]) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.Stats()
}

// ServerStats returns the counters of the local server of a
// single-player session, and false for a session of a remote server.
func (s *Session[I]) ServerStats() (ServerStats, bool) {
	if s.srv == nil {
		return ServerStats{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.srv.Stats(), true
}

// Close says bye and ends the session; a single-player session also closes
// its loopback.
func (s *Session[I]) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.cli.Close()
	s.closeMigrated()
	s.state.Store(uint32(Ended))
	if s.ownConn {
		for _, c := range s.conns {
			c.Close()
		}
	}
	return err
}
