// Package facehook is what package rooms reaches of the root package's
// Session beyond the face a game sees: host migration (a Migrator the
// session runs when it loses its server, the relay's notice that the
// server is lost) and the session owning its connection. The root
// package installs the hooks in its init (Install); rooms calls them
// (SetMigrator, ServerLost, Own) with a *rewind.Session[I].
package facehook

import (
	"context"
	"io"

	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// Server is what a session runs of the match's server it hosts (a
// *server.Server[I]: a single-player session's, or one it serves or took
// over in a migration). The session holds its server as this interface,
// not as a *server.Server[I], so that a program whose sessions never host
// (one that only calls Connect: a browser tab's joining Worker) does not
// link the server: the linker keeps a type's methods only once a value
// of it is converted to an interface, and only Play and package
// rooms/migrate's hosting do that.
type Server interface {
	Update(now time.Time) error
	Stats() server.Stats
	SetOwnPlayer(id game.PlayerID, ok bool)
	Goodbye(r codec.Reason) error
}

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
	Server Server
	// Closers are closed with the session (the server's transports).
	Closers []io.Closer
	// Lost, if set, is closed when the next server is known lost in turn
	// (the relay's notice about the next host; with Server, that the
	// room this session hosts is another player's now): the session then
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

// Hooks are the root package's functions behind SetMigrator, ServerLost,
// Own, SetGoodbye, Addrs and Serve; each takes a *rewind.Session[I] as session (and
// SetMigrator a Migrator[I] of the same I as fn) or a *rewind.Host[I] as
// host.
type Hooks struct {
	SetMigrator func(session, fn any)
	ServerLost  func(session any)
	Own         func(session any)
	SetGoodbye  func(host any, r codec.Reason)
	Addrs       func(session any) (local, remote string)
	Serve       func(session, srv any, closers []io.Closer)
}

var hooks Hooks

// Install sets the hooks; the root package calls it in its init.
func Install(h Hooks) { hooks = h }

// SetMigrator makes session (a *rewind.Session[I]) migrate when it loses
// its server instead of ending: when its client times out, the server
// says it leaves while the match goes on elsewhere, or ServerLost is
// called (the relay's notice), and the client holds the server's
// handover data and a verified world. While it migrates its State is
// Migrating, Update does not fail, and the view keeps the last world (no
// disconnect).
func SetMigrator[I any](session any, fn Migrator[I]) { hooks.SetMigrator(session, fn) }

// ServerLost tells session (a *rewind.Session[I]) its server is gone
// (the relay's notice that the host's relay connection closed or failed
// its pings): with a Migrator, the session migrates at its next Update.
// It may be called from any goroutine. It concerns the session's first
// server: a notice that comes while the session migrates, or after it
// moved, is about the server it left and is dropped; the next server's
// loss is told through Migrated.Lost.
func ServerLost(session any) { hooks.ServerLost(session) }

// Own makes session (a *rewind.Session[I] that rewind.Connect started)
// own its connection: its Close says bye, then closes it.
func Own(session any) { hooks.Own(session) }

// SetGoodbye sets why host's (a *rewind.Host[I]) Close says goodbye to
// the players: codec.ReasonShutdown (the default: the server left, the
// match is over), ReasonEnded (the match ended on purpose) or
// ReasonMigrate (the server leaves, the match goes on at another host).
func SetGoodbye(host any, r codec.Reason) { hooks.SetGoodbye(host, r) }

// Addrs returns the addresses of session's (a *rewind.Session[I])
// connection as its transport names them (for a UDP session, "ip:port"
// of the socket and of the server), for logs.
func Addrs(session any) (local, remote string) { return hooks.Addrs(session) }

// Serve makes session (a *rewind.Session[I] that rewind.Connect started
// over a loopback to srv, a *server.Server[I]) host the match as well as
// play in it: its Update runs srv before and after its client, Hosting
// is true, srv knows the session's player as its own machine's once the
// welcome came (server.Server.SetOwnPlayer), and Close says goodbye to
// srv's players (the match goes on elsewhere) and closes closers.
func Serve(session, srv any, closers []io.Closer) { hooks.Serve(session, srv, closers) }
