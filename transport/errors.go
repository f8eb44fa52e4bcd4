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
)
