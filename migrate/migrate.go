package migrate

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
// over in a migration). A session holds its server as this interface,
// not as a *server.Server[I], so that a program whose sessions never host
// (one that only calls rewind.Connect: a browser tab's joining Worker)
// does not link the server: the linker keeps a type's methods only once a
// value of it is converted to an interface, and only rewind.Play, Serve
// and Resume do that.
type Server interface {
	Update(now time.Time) error
	Stats() server.Stats
	SetOwnPlayer(id game.PlayerID, ok bool)
	Goodbye(r codec.Reason) error
}

// Migrated is where a session goes on after a host migration: a
// connection to the match's next server, and that server if this session
// hosts it now.
type Migrated[I any] struct {
	// Conn is the session's connection to the next server (a client-side
	// Conn; the session owns it).
	Conn transport.Conn
	// Server, if set, is the match's next server, resumed from the
	// handoff (Resume): the session runs it (Update, before and after its
	// client) and says goodbye to its players when closed.
	Server Server
	// Closers are closed with the session (the server's transports).
	Closers []io.Closer
	// Lost, if set, is closed when the next server is known lost in turn
	// (the relay's notice about the next host; with Server, that the
	// room this session hosts is another player's now): the session then
	// migrates again, as at Mover.ServerLost.
	Lost <-chan struct{}
}

// Close closes what m holds: its Conn and Closers (a Migrated that
// never reached a session).
func (m Migrated[I]) Close() {
	if m.Conn != nil {
		m.Conn.Close()
	}
	for _, c := range m.Closers {
		c.Close()
	}
}

// Migrator moves a session to the match's next host: it claims the match
// where its players meet again (package rooms: the relay's room, with
// the handoff's code and key) and returns the connection to the next
// server, or that server when this session is to host it (Resume builds
// it). It runs on a goroutine of its own; ctx ends when the session is
// closed, and it must then return soon: Close waits for it, and closes
// what it returns.
type Migrator[I any] func(ctx context.Context, h client.Handoff) (Migrated[I], error)

// Mover is a session's side of host migration, what
// (*rewind.Session[I]).Migration returns: package rooms and a browser
// tab's Worker set a session's Migrator and tell it when the relay says
// its server is lost.
type Mover[I any] interface {
	// SetMigrator makes the session migrate with fn when it loses its
	// server instead of ending: when its client times out, the server
	// says it leaves while the match goes on elsewhere, or ServerLost is
	// called, and the client holds the server's handover data and a
	// verified world. While it migrates its State is Migrating, Update
	// does not fail, and the view keeps the last world.
	SetMigrator(fn Migrator[I])
	// ServerLost tells the session its server is gone (the relay's notice
	// that the host's relay connection closed or failed its pings): with
	// a Migrator, the session migrates at its next Update. A session that
	// hosts the match is told so when the relay gave its room to another
	// player: its server says goodbye and stops, and the session
	// migrates as a player. It may be called from any goroutine; a
	// notice that comes while the session migrates, or after it moved,
	// concerns the server it left and is dropped (the next server's loss
	// comes through Migrated.Lost).
	ServerLost()
	// Own makes the session own its connection: its Close says bye, then
	// closes it (and with it, for a Conn whose Close leaves the room, the
	// room).
	Own()
	// Serve makes the session, started by rewind.Connect over m.Conn (a
	// loopback to m.Server: Serve's result), host the match as well as
	// play in it: it owns m.Conn, its Update runs m.Server before and
	// after its client, Hosting is true, the server knows the session's
	// player as its own machine's once the welcome came, and Close says
	// goodbye to the server's players (the match goes on elsewhere) and
	// closes m.Closers.
	Serve(m Migrated[I])
}
