package rewind

import (
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/transport/udp"
)

// The errors a game tests for with errors.Is. Each is the same value as
// the error of the package that raises it, so errors.Is matches it
// whichever name the test uses.
var (
	// ErrNotDeterministic indicates a game that stepped the same tick from
	// the same world and inputs to two different worlds (SyncTest).
	ErrNotDeterministic = client.ErrNotDeterministic
	// ErrRefused indicates the match refused to admit this player (full,
	// another game or protocol, a bad rejoin cookie): a session's Update
	// or Run fails with a *RefusedError, which names the reason.
	ErrRefused = client.ErrRefused
	// ErrTimeout indicates a server not heard from for too long
	// (ClientConfig.ServerTimeout).
	ErrTimeout = client.ErrTimeout
	// ErrKicked indicates the server ended this player's connection (it
	// said bye: a timeout on its side, a shutdown, bad datagrams).
	ErrKicked = client.ErrKicked
	// ErrMatchEnded indicates the server said the match ended on purpose
	// (Host.End): a session's Update or Run fails with an *EndedError,
	// which names the match's last tick and the session's last verified
	// one. It wraps ErrKicked too.
	ErrMatchEnded = client.ErrMatchEnded
	// ErrClosed indicates a closed session.
	ErrClosed = client.ErrClosed
	// ErrConfig indicates a client setting that cannot work (for one,
	// ClientConfig.HostSettings with a game that is not Configurable).
	ErrConfig = client.ErrConfig

	// ErrHandshake indicates that nobody answered ConnectUDP's handshake
	// within UDPConfig.HandshakeTimeout (no server at the address).
	ErrHandshake = udp.ErrHandshake
	// ErrConnRefused indicates a server whose socket refused ConnectUDP's
	// handshake (it holds as many sessions as it takes, or speaks another
	// version of the UDP framing): the socket's refusal, before any
	// match. A match that refuses the player is ErrRefused instead.
	ErrConnRefused = udp.ErrRefused
	// ErrServerKey indicates that ConnectUDP's server proved a key other
	// than the one pinned (UDPConfig.ServerKey): someone else answered at
	// the address, or the server's key changed.
	ErrServerKey = udp.ErrServerKey
	// ErrPeerGone indicates a connection that ended below the match: the
	// server's socket said bye or went silent past the idle timeout
	// (UDPConfig.IdleTimeout).
	ErrPeerGone = udp.ErrPeerGone
)
