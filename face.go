package rewind

import (
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
)

// The settings and counters a game reads and writes, named in the root
// package so that a game imports rewind (and world for its state) and
// nothing else. Each is an alias: the same type as in the package that
// uses it, so values pass between the two without conversion.

// ServerConfig configures the authoritative match (Options.Server for a
// single-player session; a host's Server): tick history, player limits and
// timeouts, hooks. Its zero value means every default; see server.Config.
type ServerConfig = server.Config

// ClientConfig configures a session's client (Options.Client): prediction
// window, input delay, server timeout, rejoin cookie, hooks. Its zero value
// means every default; see client.Config.
type ClientConfig = client.Config

// Stats is what a session's client reports about itself (Session.Stats):
// verified and predicted tick, ping, rollbacks, desyncs, bytes. See
// client.Stats.
type Stats = client.Stats

// ServerStats is what a match's server reports (a host's counters, and
// Session.ServerStats of a single-player session). See server.Stats.
type ServerStats = server.Stats

// Conn is a datagram connection a session (Connect: a client-side Conn)
// or a host (NewHost: a server-side Conn) runs over: an in-process
// loopback, a UDP socket, a WebRTC room, the simulator. See
// transport.Conn.
type Conn = transport.Conn

// UDPConfig configures a UDP socket (UDPOptions.UDP): handshake and idle
// timeouts, buffer sizes. Its zero value means every default; see
// udp.Config.
type UDPConfig = udp.Config

// UDPStats is a UDP socket's counters (a host's HostStats.UDP): every
// datagram, valid or not, with what the transport refused and dropped.
// See udp.Stats.
type UDPStats = udp.Stats

// RefusedError is the error a session fails with when the match refused
// the player, with the server's reason: errors.Is(err, ErrRefused) holds
// for it and errors.As finds it.
type RefusedError = client.RefusedError

// EndedError is the error a session fails with when the server said the
// match ended on purpose (a Host's End): Last is the match's last tick
// (HasLast: the server named it), Verified the session's last verified
// tick; Complete reports whether the session has every tick of the match.
// errors.Is(err, ErrMatchEnded) and errors.Is(err, ErrKicked) hold.
type EndedError = client.EndedError

// Reason says why a match refused a player (RefusedError.Reason). The
// reasons a server says goodbye with (codec.ReasonShutdown, ReasonEnded,
// ReasonOperator, ReasonMigrate) are the hosts' own: a session sees them
// as ErrKicked, an *EndedError (its Operator set for ReasonOperator: the
// operator ended the match) or a host migration.
type Reason = codec.Reason

// Reasons a match refuses a player for.
const (
	// ReasonFull: the match has no free player slot.
	ReasonFull = codec.ReasonFull
	// ReasonProtocol: the player speaks another protocol version.
	ReasonProtocol = codec.ReasonProtocol
	// ReasonGame: the player's game differs (another game, another
	// version of it, other settings such as the tick rate).
	ReasonGame = codec.ReasonGame
	// ReasonCookie: the rejoin cookie is unknown or expired.
	ReasonCookie = codec.ReasonCookie
	// ReasonNoRoom: no match of the server has the room code asked for
	// (a host.Multi).
	ReasonNoRoom = codec.ReasonNoRoom
)
