package transport

import "errors"

var (
	// Errors of every Conn.

	// ErrWouldBlock indicates that no datagram is waiting.
	ErrWouldBlock = errors.New("transport: no datagram waiting")
	// ErrClosed indicates an operation on a closed Conn.
	ErrClosed = errors.New("transport: closed")
	// ErrTooLarge indicates a datagram longer than MaxDatagram.
	ErrTooLarge = errors.New("transport: datagram larger than MaxDatagram")
	// ErrUnknownPeer indicates a send to an address the Conn has no session with.
	ErrUnknownPeer = errors.New("transport: unknown peer")
	// ErrBadConfig indicates a setting that cannot work (such as a token
	// key of the wrong length).
	ErrBadConfig = errors.New("transport: bad config")

	// Errors of the simulated network (sim*.go).

	// ErrAddrInUse indicates a Listen or Dial on a name or address that an
	// open endpoint already uses.
	ErrAddrInUse = errors.New("transport: address in use")

	// Errors of the UDP transport (udp*.go).

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
	// than the one the client pinned (UDPConfig.ServerKey).
	ErrServerKey = errors.New("transport: server key is not the pinned one")
	// ErrReplayed indicates a sealed UDP frame whose counter the receiver
	// took already or that fell out of its replay window; it is dropped.
	ErrReplayed = errors.New("transport: replayed udp frame")
)
