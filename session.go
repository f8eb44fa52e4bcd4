package rewind

import (
	"fmt"
	"sync"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// Options configures a Session. The zero value plays with every default.
type Options struct {
	// Server configures the server of a single-player session.
	Server server.Config
	// Client configures the session's client.
	Client client.Config
}

// Session is one player's seat in a match: a client, and for a
// single-player session the server too, over an in-process loopback. It is
// driven by Update (made-up or real time) or by Run (real time, in a loop
// that waits on the network and a ticker). A Session is safe for use by
// several goroutines: Run's loop and a game's view may share it.
type Session[I any] struct {
	mu      sync.Mutex
	srv     *server.Server[I]
	cli     *client.Client[I]
	conns   []transport.Conn
	period  time.Duration
	closed  bool
	ownConn bool
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
	return &Session[I]{
		srv: srv, cli: cli, conns: []transport.Conn{sconn, cconn},
		period: tickPeriod(g), ownConn: true,
	}, nil
}

// Connect starts a session of g as a client of the server at the other end
// of conn (a client-side Conn: its RemoteAddr is the server). The session
// does not close conn.
func Connect[I any](g Game[I], conn transport.Conn, opts Options) (*Session[I], error) {
	cli, err := client.New(g, conn, opts.Client)
	if err != nil {
		return nil, fmt.Errorf("rewind: %w", err)
	}
	return &Session[I]{cli: cli, conns: []transport.Conn{conn}, period: tickPeriod(g)}, nil
}

func tickPeriod(g any) time.Duration {
	return time.Second / time.Duration(game.RateOf(g))
}

// Update runs the session at now: the local server (if any) handles what
// arrived and runs the ticks due, then the client does. It returns the
// first error of either.
func (s *Session[I]) Update(now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return client.ErrClosed
	}
	if s.srv != nil {
		if err := s.srv.Update(now); err != nil {
			return err
		}
	}
	if err := s.cli.Update(now); err != nil {
		return err
	}
	if s.srv != nil {
		// The client's inputs arrived during its Update (loopback): let
		// the server see them now rather than a step later.
		return s.srv.Update(now)
	}
	return nil
}

// SetInput sets the input this player applies from the next predicted tick
// on, until changed.
func (s *Session[I]) SetInput(in I) {
	s.mu.Lock()
	s.cli.SetInput(in)
	s.mu.Unlock()
}

// SetInputFunc makes the session ask fn for this player's input of every
// tick it predicts. fn runs inside Update.
func (s *Session[I]) SetInputFunc(fn func(tick uint32) I) {
	s.mu.Lock()
	s.cli.SetInputFunc(fn)
	s.mu.Unlock()
}

// View calls fn with the predicted world and the fraction of the way from
// its tick to the next at now (for drawing between ticks), while no Update
// runs. fn must not keep or change the world.
func (s *Session[I]) View(now time.Time, fn func(w *world.World, alpha float64)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.cli.World(), s.cli.Alpha(now))
}

// World returns the predicted world. Only use it from the goroutine that
// calls Update (or inside View when Run drives the session).
func (s *Session[I]) World() *world.World { return s.cli.World() }

// Player returns this player's id and whether the server has welcomed it.
func (s *Session[I]) Player() (PlayerID, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.Player()
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
func (s *Session[I]) Stats() client.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.Stats()
}

// Server returns the local server of a single-player session, or nil.
// Only use it from the goroutine that calls Update.
func (s *Session[I]) Server() *server.Server[I] { return s.srv }

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
	if s.ownConn {
		for _, c := range s.conns {
			c.Close()
		}
	}
	return err
}
