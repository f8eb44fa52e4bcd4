// Package transport is the one small datagram interface that rewind's server
// and client consume, and its implementations: an in-process loopback and a
// seeded network simulator running in made-up time, direct UDP, WebRTC data
// channels and WebSocket.
//
// Every implementation is unreliable, unordered and message-preserving: a
// datagram arrives whole, once or more, or not at all. Reliability is the
// codec's job, above this interface.
package transport

import (
	"errors"
	"time"
)

// MaxDatagram is the largest datagram any transport must carry, in bytes
// (the design's MTU). Larger sends fail with ErrTooLarge.
const MaxDatagram = 1200

// Addr identifies a peer of a Conn. It is comparable and stable for as long
// as the peer's session lasts, so the server can key players by it; its text
// is transport-specific (for example "sim:3" or "udp:127.0.0.1:4000#9").
type Addr string

// Conn is a datagram endpoint. A server's Conn talks to many peers; a
// client's Conn talks to one (its RemoteAddr). All methods are safe for use
// by one goroutine at a time alongside the transport's own goroutines.
type Conn interface {
	// Send sends one datagram of at most MaxDatagram bytes to the peer to.
	// The caller may reuse p once Send returns. Sending never blocks for
	// long: a datagram that cannot be sent now is dropped, as the network
	// might drop it. Send returns an error only for a closed Conn, an
	// unknown peer or an oversized datagram.
	Send(to Addr, p []byte) error
	// Recv copies the next waiting datagram into p and returns its length
	// and sender. It never blocks: with nothing waiting it returns
	// ErrWouldBlock. A datagram longer than p is truncated to len(p).
	Recv(p []byte) (n int, from Addr, err error)
	// Ready returns a channel that receives a value when a datagram may be
	// waiting. Real-time loops select on it; simulated loops poll Recv
	// after advancing the simulated clock instead.
	Ready() <-chan struct{}
	// LocalAddr is this endpoint's own address.
	LocalAddr() Addr
	// RemoteAddr is the peer of a client-side Conn, or "" for a Conn that
	// accepts many peers.
	RemoteAddr() Addr
	// Close releases the endpoint; later calls fail with ErrClosed.
	Close() error
}

// Clock gives the current time. Code that must run in made-up time takes a
// Clock (or the time as an argument) instead of reading the wall clock.
type Clock interface {
	Now() time.Time
}

// WallClock is the real clock.
type WallClock struct{}

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

var (
	// ErrWouldBlock indicates that no datagram is waiting.
	ErrWouldBlock = errors.New("transport: no datagram waiting")
	// ErrClosed indicates an operation on a closed Conn.
	ErrClosed = errors.New("transport: closed")
	// ErrTooLarge indicates a datagram longer than MaxDatagram.
	ErrTooLarge = errors.New("transport: datagram larger than MaxDatagram")
	// ErrUnknownPeer indicates a send to an address the Conn has no session with.
	ErrUnknownPeer = errors.New("transport: unknown peer")
)
