package rewind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/migrate"
)

// mover is a session's side of host migration as package migrate names
// it (Session.Migration).
type mover[I any] struct{ s *Session[I] }

var _ migrate.Mover[int] = mover[int]{}

// Migration returns the session's side of host migration (migrate.Mover):
// package rooms, and a browser tab's Worker, set the session's Migrator
// with it and tell it when the relay says its server is lost. A game
// that plays through package rooms never calls it.
func (s *Session[I]) Migration() migrate.Mover[I] { return mover[I]{s} }

// SetMigrator implements migrate.Mover.
func (m mover[I]) SetMigrator(fn migrate.Migrator[I]) { m.s.setMigrator(fn) }

// ServerLost implements migrate.Mover.
func (m mover[I]) ServerLost() { m.s.serverLost() }

// Own implements migrate.Mover.
func (m mover[I]) Own() { m.s.own() }

// Serve implements migrate.Mover.
func (m mover[I]) Serve(mg migrate.Migrated[I]) {
	m.s.own()
	m.s.serve(mg.Server, mg.Closers)
}

// migration is a session's host-migration state.
type migration[I any] struct {
	fn      migrate.Migrator[I]
	running bool
	done    chan migrationResult[I]
	cancel  context.CancelFunc
	count   int
	hosting bool
	handoff client.Handoff
	closers []io.Closer
	// srvClosers are the transports of the server the session hosts,
	// closed when it stops hosting (stopHosting) or closes.
	srvClosers []io.Closer
	lost       <-chan struct{} // the current server's Migrated.Lost
	// ownPending says the session hosts from the start (serveAny) and
	// its server does not know its own player yet.
	ownPending bool
	// whyNot is why the last migration could not start (the client's
	// Handoff false: client.HandoffWhy), for the error that ends the
	// session then.
	whyNot string
	// rejoined says the client at the current server joined it as a new
	// player, the server having refused the cookie it resumed with
	// (rejoinRefused).
	rejoined bool
}

type migrationResult[I any] struct {
	m   migrate.Migrated[I]
	err error
}

// setMigrator makes the session migrate with fn when it loses its server
// instead of ending (migrate.Mover.SetMigrator: package rooms sets one
// for sessions of a room hosted with migration).
func (s *Session[I]) setMigrator(fn migrate.Migrator[I]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mig.fn = fn
}

// serverLost tells the session its server is gone (migrate.Mover.ServerLost:
// the relay's notice about the session's first server): with a migrator,
// the session migrates at its next Update. A notice that comes while the
// session migrates, or after it moved (its watcher's goroutine late: a
// host's goodbye can start and finish the move first), concerns the
// server it left and is dropped; later servers' losses come through
// Migrated.Lost.
func (s *Session[I]) serverLost() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mig.count == 0 {
		s.lost.Store(true)
	}
}

// own makes the session close its connections when it closes
// (migrate.Mover.Own, connectOwned).
func (s *Session[I]) own() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ownConn = true
}

// serve makes the session host the match it plays in
// (migrate.Mover.Serve): srv is the server the session's client reaches
// over a loopback; its own player is set once the welcome came
// (ownPending).
func (s *Session[I]) serve(srv migrate.Server, closers []io.Closer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.srv, s.mig.hosting, s.mig.ownPending = srv, true, true
	s.mig.srvClosers = append(s.mig.srvClosers, closers...)
}

// Migrations returns how many times the session moved to a new host (the
// session that takes the hosting over counts its takeover).
func (s *Session[I]) Migrations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mig.count
}

// Hosting reports whether the session hosts the match (it took the
// hosting over in a migration).
func (s *Session[I]) Hosting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mig.hosting
}

// migrating returns whether the client's error err (nil: none) or the
// relay's notice starts a migration, and starts it. The caller holds
// s.mu.
func (s *Session[I]) startMigration(err error) bool {
	if s.mig.fn == nil || s.closed {
		return false
	}
	lost := s.lost.Swap(false)
	if s.mig.lost != nil {
		select {
		case <-s.mig.lost:
			lost = true
		default:
		}
	}
	if err != nil && !errors.Is(err, client.ErrTimeout) && !errors.Is(err, client.ErrHostLeaving) {
		return false
	}
	if err == nil && !lost {
		return false
	}
	h, why := s.cli.HandoffWhy()
	if why != "" {
		// Not yet, perhaps (its world is being repaired): the relay's
		// notice stays for the next Update, and an error says why.
		s.lost.Store(s.lost.Load() || lost)
		s.mig.whyNot = why
		return false
	}
	if s.mig.hosting {
		s.stopHosting()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.mig.running, s.mig.handoff, s.mig.cancel, s.mig.whyNot = true, h, cancel, ""
	s.mig.done = make(chan migrationResult[I], 1)
	fn, done := s.mig.fn, s.mig.done
	go func() {
		m, err := fn(ctx, h)
		done <- migrationResult[I]{m, err}
	}()
	return true
}

// finishMigration takes the migration's result when it is in: a new
// client of the next server from the handoff (and that server, if this
// session hosts it). The caller holds s.mu.
func (s *Session[I]) finishMigration() error {
	var r migrationResult[I]
	select {
	case r = <-s.mig.done:
	default:
		return nil // still migrating
	}
	s.mig.running = false
	s.mig.cancel()
	if r.err != nil {
		return fmt.Errorf("rewind: host migration: %w", r.err)
	}
	h := s.mig.handoff
	ccfg := s.ccfg
	ccfg.Resume = &h
	ccfg.HostSettings = false // s.g is the host's game already
	cli, err := client.New(s.g, r.m.Conn, ccfg)
	if err != nil {
		r.m.Conn.Close()
		for _, c := range r.m.Closers {
			c.Close()
		}
		return fmt.Errorf("rewind: host migration: %w", err)
	}
	cli.SetInputFunc(s.inputFn)
	if s.inputFn == nil {
		cli.SetInput(s.input)
	}
	old := s.cli
	_ = old.Close()
	s.cli = cli
	s.conns = append(s.conns, r.m.Conn)
	s.mig.count++
	s.mig.rejoined = false
	// Notices of a lost server that came until now were about the
	// servers left behind; the new one's come through r.m.Lost.
	s.lost.Store(false)
	s.mig.lost = r.m.Lost
	if r.m.Server != nil {
		s.srv, s.mig.hosting = r.m.Server, true
		s.mig.srvClosers = append(s.mig.srvClosers, r.m.Closers...)
		s.srv.SetOwnPlayer(h.Player, true)
	} else {
		s.mig.closers = append(s.mig.closers, r.m.Closers...)
	}
	return nil
}

// rejoinRefused answers the next server's refusal of the cookie the
// session's client resumed with after a move (err: the client's error):
// that server's handover data lacked it (its claimer's data was older
// than this player's welcome), so the session's player is not awaited
// there; a new client joins that match as a new player over the same
// connection (a new id, the world from the server) instead of the
// session failing. It reports whether it did. The caller holds s.mu.
func (s *Session[I]) rejoinRefused(err error) bool {
	var re *client.RefusedError
	if !errors.As(err, &re) || re.Reason != codec.ReasonCookie || s.mig.count == 0 || s.mig.rejoined || s.mig.hosting || len(s.conns) == 0 {
		return false
	}
	ccfg := s.ccfg
	ccfg.HostSettings = false // s.g is the host's game already
	cli, nerr := client.New(s.g, s.conns[len(s.conns)-1], ccfg)
	if nerr != nil {
		return false
	}
	cli.SetInputFunc(s.inputFn)
	if s.inputFn == nil {
		cli.SetInput(s.input)
	}
	_ = s.cli.Close()
	s.cli, s.mig.rejoined = cli, true
	return true
}

// closeMigrated ends what migrations left: a hosted match's goodbye (the
// match goes on elsewhere), the server's transports. The caller holds
// s.mu.
func (s *Session[I]) closeMigrated() {
	if s.mig.cancel != nil {
		s.mig.cancel()
	}
	if s.mig.running {
		// The Migrator ends with its context; what it made is closed
		// with the session.
		s.mig.running = false
		if r := <-s.mig.done; r.err == nil {
			r.m.Conn.Close()
			for _, c := range r.m.Closers {
				c.Close()
			}
		}
	}
	if s.mig.hosting && s.srv != nil {
		_ = s.srv.Goodbye(codec.ReasonMigrate)
	}
	for _, c := range slices.Concat(s.mig.srvClosers, s.mig.closers) {
		c.Close()
	}
}

// stopHosting ends the hosting of a session told that its server is
// lost (ServerLost, Migrated.Lost): the relay gave the room it hosts to
// another player (it left the relay's pings unanswered: a stopped
// process, a frozen browser tab, a machine asleep; or its relay
// connection ended and another claimant took the room). Its server says
// goodbye to whoever still plays there (the match goes on elsewhere:
// they migrate too), its transports close, and the session migrates as
// a player does, from its own client's handoff: it claims the room and
// is introduced to the new host, which does not await this machine's
// player (the handover data names it the host's own), so it joins there
// as a new player (rejoinRefused). The caller holds s.mu.
func (s *Session[I]) stopHosting() {
	_ = s.srv.Goodbye(codec.ReasonMigrate)
	for _, c := range s.mig.srvClosers {
		c.Close()
	}
	s.mig.srvClosers = nil
	s.srv, s.mig.hosting, s.mig.ownPending = nil, false, false
}
