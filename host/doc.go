// Package host hosts many matches of one game on one server-side Conn
// (one UDP socket: ListenUDP), a match per room code: Multi. A player
// picks its match by the room code in its hello (rewind.ClientConfig.Room;
// rewind play --connect HOST:PORT --room CODE), or a relay names it
// (Options.RoomOf: package rooms' Serve runs a Multi behind a relay).
//
// Inside, a router sends each datagram to its room's queue, a pool of
// workers takes the rooms whose tick is due from a deadline heap and runs
// their updates (a goroutine per worker, not per match), and a worker's
// datagrams leave together in one batch (one sendmmsg on Linux). TickLag
// returns how late the ticks ran (Lag). Each room runs matches as a
// rewind.Host does, one at a time. One match on a socket is rewind.Host's
// job; see docs/scaling.md for a fleet of match servers.
package host
