package migrate

import (
	"fmt"
	"io"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// Serve starts a new match's server of g for a session that hosts it and
// plays in it: the server runs over conn (a server-side Conn its players
// reach, e.g. a browser tab's data channels handed to its Worker) and an
// in-process loopback whose client side is the result's Conn. Connect a
// session over it (rewind.Connect) and give it the rest
// (Migration().Serve): its Update runs both, Hosting is true and the
// server knows the session's player as its own machine's (the next host
// drops it). cfg configures the server: with cfg.HostMigration (and
// cfg.Room, the room's code and key) it sends its players the handover
// data, so the match outlives this host, and the session's Close says
// the match goes on elsewhere. The result's Closers close conn; Serve
// closes conn if it fails.
func Serve[I any](g game.Game[I], conn transport.Conn, cfg server.Config) (Migrated[I], error) {
	srv, multi, cconn, err := serveLoopback(g, conn, cfg)
	if err != nil {
		return Migrated[I]{}, err
	}
	return Migrated[I]{Conn: cconn, Server: srv, Closers: []io.Closer{multi}}, nil
}

// Resume makes the match's next server for a session that takes the
// hosting over in a host migration (a Migrator's result): a server
// resumed from h (server.Config.Resume: its tick, world, roster and
// handover data; the room is h's) over conn, the server-side Conn the
// players reach this machine by, and an in-process loopback to the
// session's own client (Migrated.Conn). cfg configures the server (its
// Resume, Room and HostMigration are set here; MaxPlayers grows to hold
// every id of the old match). Migrated.Closers closes conn.
func Resume[I any](g game.Game[I], conn transport.Conn, h client.Handoff, cfg server.Config) (Migrated[I], error) {
	cfg.HostMigration = true
	cfg.Room = server.Room{Code: h.Handover.Code, Key: h.Handover.Key}
	cfg.Resume = &server.Resume{Tick: h.Tick, World: h.World, Roster: h.Roster, Handover: h.Handover}
	cfg.Schema = nil
	// Room for every id of the old match (its players keep their ids).
	for _, p := range h.Handover.Players {
		if int(p.ID) >= max(cfg.MaxPlayers, 16) {
			cfg.MaxPlayers = int(p.ID) + 1
		}
	}
	srv, multi, cconn, err := serveLoopback(g, conn, cfg)
	if err != nil {
		return Migrated[I]{}, err
	}
	return Migrated[I]{Conn: cconn, Server: srv, Closers: []io.Closer{multi}}, nil
}

// serveLoopback starts a server of g over conn and an in-process
// loopback, and returns it, the Conn it runs over (closing it closes
// conn) and the loopback's client side. It closes conn if it fails.
func serveLoopback[I any](g game.Game[I], conn transport.Conn, cfg server.Config) (*server.Server[I], transport.Conn, transport.Conn, error) {
	loop := transport.NewLoopback()
	own, err := loop.Listen("host")
	if err != nil {
		conn.Close()
		return nil, nil, nil, fmt.Errorf("migrate: serve: %w", err)
	}
	cconn, err := loop.Dial("own", "host")
	if err != nil {
		own.Close()
		conn.Close()
		return nil, nil, nil, fmt.Errorf("migrate: serve: %w", err)
	}
	multi, err := transport.NewMulti(conn, own)
	if err != nil { // a Conn that is not server-side
		own.Close()
		cconn.Close()
		conn.Close()
		return nil, nil, nil, fmt.Errorf("migrate: serve: %w", err)
	}
	srv, err := server.New(g, multi, cfg)
	if err != nil {
		multi.Close()
		cconn.Close()
		return nil, nil, nil, fmt.Errorf("migrate: serve: %w", err)
	}
	return srv, multi, cconn, nil
}
