package udp

import "errors"

// Errors of the UDP transport. A Conn of this package also returns the
// errors every Conn does (transport.ErrClosed, ErrTooLarge, ErrUnknownPeer,
// ErrWouldBlock) and transport.ErrBadConfig for a setting that cannot work.
var (
	// ErrMalformed indicates a datagram that does not parse as a frame of
	// the transport's protocol; receivers count and drop such datagrams.
	ErrMalformed = errors.New("transport: malformed datagram")
	// ErrHandshake indicates a UDP handshake that did not complete within
	// the configured HandshakeTimeout (no server answering at the address).
	ErrHandshake = errors.New("transport: handshake timed out")
	// ErrRefused indicates a server that answered the handshake with a
	// refusal (full, or a protocol version it does not speak).
	ErrRefused = errors.New("transport: connection refused by server")
	// ErrPeerGone indicates a session that ended: the peer said bye or was
	// silent for longer than the idle timeout.
	ErrPeerGone = errors.New("transport: peer gone")
	// ErrServerKey indicates a UDP server that proved a static key other
	// than the one the client pinned (Config.ServerKey).
	ErrServerKey = errors.New("transport: server key is not the pinned one")
	// ErrReplayed indicates a sealed UDP frame whose counter the receiver
	// took already or that fell out of its replay window; it is dropped.
	ErrReplayed = errors.New("transport: replayed udp frame")
)
