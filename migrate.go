package rewind

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// Handoff is what a session that lost its server carries to the match's
// next server (host migration): its last verified tick and world, the
// tick stream's roster, the old server's handover data, its id and
// cookie.
type Handoff = client.Handoff

// Migrated is where a session goes on after a host migration: a
// connection to the match's next server, and that server if this session
// hosts it now.
type Migrated[I any] struct {
	// Conn is the session's connection to the next server (a client-side
	// Conn; the session owns it).
	Conn transport.Conn
	// Server, if set, is the match's next server, resumed from the
	// handoff: the session runs it (Update, before and after its client)
	// and says goodbye to its players when closed.
	Server *server.Server[I]
	// Closers are closed with the session (the server's transports).
	Closers []io.Closer
	// Lost, if set, is closed when the next server is known lost in turn
	// (the relay's notice about the next host): the session then
	// migrates again, as at ServerLost.
	Lost <-chan struct{}
}

// Migrator moves a session to the match's next host: it claims the match
// where its players meet again (package rooms: the relay's room) and
// returns the connection to the next server, or that server when this
// session is to host it. It runs on a goroutine of its own; ctx ends when
// the session is closed, and it must then return soon: Close waits for
// it, and closes what it returns.
type Migrator[I any] func(ctx context.Context, h Handoff) (Migrated[I], error)

// migration is a session's host-migration state.
type migration[I any] struct {
	fn      Migrator[I]
	running bool
	done    chan migrationResult[I]
	cancel  context.CancelFunc
	count   int
	hosting bool
	handoff Handoff
	closers []io.Closer
	lost    <-chan struct{} // the current server's Migrated.Lost
}

type migrationResult[I any] struct {
	m   Migrated[I]
	err error
}

// SetMigrator makes the session migrate when it loses its server instead
// of ending: when its client times out, the server says it leaves while
// the match goes on elsewhere, or ServerLost is called (the relay's
// notice), and the client holds the server's handover data and a
// verified world. While it migrates its State is Migrating, Update does
// not fail, and the view keeps the last world (no disconnect). Package
// rooms sets one for sessions of a room hosted with migration.
func (s *Session[I]) SetMigrator(fn Migrator[I]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mig.fn = fn
}

// ServerLost tells the session its server is gone (the relay's notice
// that the host's relay connection closed or failed its pings): with a
// Migrator, the session migrates at its next Update. It may be called
// from any goroutine. A notice that comes while the session migrates
// concerns the server it left, and is dropped once it moved: the next
// server's loss is told through Migrated.Lost.
func (s *Session[I]) ServerLost() { s.lost.Store(true) }

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
	h, ok := s.cli.Handoff()
	if !ok {
		return false
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.mig.running, s.mig.handoff, s.mig.cancel = true, h, cancel
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
	s.mig.closers = append(s.mig.closers, r.m.Closers...)
	s.mig.count++
	// Notices of a lost server that came until now were about the
	// servers left behind; the new one's come through r.m.Lost.
	s.lost.Store(false)
	s.mig.lost = r.m.Lost
	if r.m.Server != nil {
		s.srv, s.mig.hosting = r.m.Server, true
		s.srv.SetOwnPlayer(h.Player, true)
	}
	return nil
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
	for _, c := range s.mig.closers {
		c.Close()
	}
}
