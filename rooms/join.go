package rooms

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// Conn is a player's transport.Conn to a room's host over a WebRTC data
// channel (RemoteAddr is the host). Close leaves the room too.
type Conn struct {
	*webrtc.Peer
	p *roomclient.RoomPlayer
}

// Dial joins the room code at the relay relayURL and returns once the
// data channel to the host is open. The relay's refusals come back as
// errors wrapping roomproto.ErrNoRoom, roomproto.ErrRoomFull, roomproto.ErrRoomEnded
// and the like.
func Dial(ctx context.Context, relayURL, code string, cfg webrtc.Config) (*Conn, error) {
	return dial(ctx, roomclient.JoinOptions{URL: relayURL, Code: code, WebRTC: cfg})
}

// dial is Dial with the relay's join options (a spectator's join).
func dial(ctx context.Context, opts roomclient.JoinOptions) (*Conn, error) {
	p, err := roomclient.JoinRoom(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("rooms: join: %w", err)
	}
	return &Conn{Peer: p.Conn(), p: p}, nil
}

// Player returns the relay's side of the player (its id, the room's code,
// why the relay connection ended).
func (c *Conn) Player() *roomclient.RoomPlayer { return c.p }

// Close leaves the room and closes the data channel.
func (c *Conn) Close() error { return c.p.Close() }

// JoinOptions configures a session that joins a room by its code.
type JoinOptions struct {
	rewind.Options
	// Relays are more relays of the same fleet (relays sharing Redis),
	// tried in turn after the relay URL given to Join: a relay that
	// cannot be reached, or does not answer within roomclient.DefaultTryTimeout,
	// is passed over for the next; a live relay's refusal (no room, the
	// room ended or is full) is final, since the fleet's relays share
	// one directory. A host migration's claims go through the list too,
	// starting with the relay that last answered. Default: none.
	Relays []string
	// WebRTC configures the player's transport (the relay adds its TURN
	// server, and loopback mode when it is on a loopback address).
	WebRTC webrtc.Config
	// HostMigration makes the session move to the match's next host when
	// it loses its host, in a room hosted with migration (the host's
	// HostOptions.HostMigration): it claims the room with the handover
	// data's code and key, and goes on as a player of the next host, or
	// as that host (rewind.Session.Migrations, Hosting). A spectator's
	// session (Client.Spectate) follows the match instead: it joins the
	// room again by its code as a spectator, to whoever took the match
	// over (roomclient.JoinAgain; a spectator is not given the room's
	// key and never hosts).
	HostMigration bool
	// Server configures the match's server should this session host it
	// after a migration (its Resume, Room and HostMigration are set).
	Server server.Config
	// MigrationTimeout bounds a host migration: how long the session
	// keeps claiming the room until it hosts the match or is connected
	// to its next host (default DefaultMigrationTimeout). The next host
	// keeps a place for the old players for 20 s (server.Resume.Wait).
	MigrationTimeout time.Duration
	// Log, if set, gets the session's host-migration steps at debug
	// level: the claim, the relay's answer, hosting or reconnecting.
	// Default: discarded.
	Log *slog.Logger
}

// DefaultMigrationTimeout is JoinOptions.MigrationTimeout's default.
const DefaultMigrationTimeout = 30 * time.Second

// Join joins the room code at the relay relayURL (or, failing it, at one
// of opts.Relays: see JoinOptions.Relays and Dial), then starts a
// session of g as a client of the room's host (see rewind.Connect). The
// session owns the connection: Close says bye and leaves the room. A
// spectator's session (opts.Client.Spectate) joins the room as a
// spectator, whom the relay does not count against the room's players.
func Join[I any](ctx context.Context, g rewind.Game[I], relayURL, code string, opts JoinOptions) (*rewind.Session[I], error) {
	conn, err := dial(ctx, roomclient.JoinOptions{URL: relayURL, URLs: opts.Relays, Code: code, WebRTC: opts.WebRTC,
		Spectator: opts.Client.Spectate})
	if err != nil {
		return nil, err
	}
	s, err := rewind.Connect(g, conn, opts.Options)
	if err != nil {
		conn.Close()
		return nil, err
	}
	s.Migration().Own()
	if !opts.HostMigration {
		return s, nil
	}
	relays := newRelayList(conn.p.URL(), relayURL, opts.Relays)
	if opts.Client.Spectate {
		s.Migration().SetMigrator(watchAgain[I](relays, conn.p.Code(), opts))
	} else {
		s.Migration().SetMigrator(migrator(s.Game, relays, opts)) // the game in play: g, or the one of the host's settings
	}
	go watchLost(conn.p, s)
	return s, nil
}

// watchLost tells s when the relay says p's host is lost, until p's relay
// connection ends.
func watchLost[I any](p *roomclient.RoomPlayer, s *rewind.Session[I]) {
	select {
	case <-p.HostLost():
		s.Migration().ServerLost()
	case <-p.Done():
	}
}
