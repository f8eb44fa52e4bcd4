package migrate

import (
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/facehook"
)

// Handoff is what a session that lost its server carries to the match's
// next server (host migration): its last verified tick and world, the
// tick stream's roster, the old server's handover data (its code and
// key name the room to claim), its player id and cookie.
type Handoff = facehook.Handoff

// Migrated is where a session goes on after a host migration: a
// connection to the match's next server (Conn), and that server
// (Server, with the Closers of its transports) if the session hosts it
// now; Lost, if set, is closed when the relay says the next server is
// lost in turn.
type Migrated[I any] = facehook.Migrated[I]

// Migrator moves a session to the match's next host: it claims the room
// with the handoff's code and key and returns the connection to the next
// server, or that server when the session is to host it (ResumeHost
// builds it). It runs on a goroutine of its own; ctx ends when the
// session is closed, and it must then return soon. rooms.Join sets one for a
// session with rooms.JoinOptions.HostMigration; SetMigrator sets another (a
// browser tab's Worker, whose relay connection is its page's).
type Migrator[I any] = facehook.Migrator[I]

// SetMigrator makes s migrate with fn when it loses its server instead
// of ending: when its client times out, the server says it leaves while
// the match goes on elsewhere, or ServerLost is called, and the client
// holds the server's handover data and a verified world. While it
// migrates its State is Migrating and Update does not fail.
func SetMigrator[I any](s *rewind.Session[I], fn Migrator[I]) { facehook.SetMigrator(s, fn) }

// ServerLost tells s its server is gone (the relay's notice that the
// host is lost): with a Migrator, s migrates at its next Update. A
// session that hosts the match (PlayHost, or a takeover) is told so when
// the relay gave its room to another player (it left the relay's pings
// unanswered: frozen, stopped, asleep): its server says goodbye and
// stops, and s migrates as a player, joining the new host's match as a
// new player (that host does not await the old host's own player). It
// may be called from any goroutine; a notice that comes while s
// migrates concerns the server it left and is dropped once it moved
// (the next server's loss comes through Migrated.Lost).
func ServerLost[I any](s *rewind.Session[I]) { facehook.ServerLost(s) }

// Own makes s, a session rewind.Connect started, own its connection: its
// Close says bye, then closes the connection (and with it, for a Conn
// whose Close leaves the room, the room).
func Own[I any](s *rewind.Session[I]) { facehook.Own(s) }
