// Package transport is the one small datagram interface that rewind's server
// and client consume, and its in-process implementations: a loopback and a
// seeded network simulator running in made-up time.
//
// Every implementation is unreliable, unordered and message-preserving: a
// datagram arrives whole, once or more, or not at all. Reliability is the
// codec's job, above this interface.
//
// # The network simulator
//
// A SimNetwork is a network of named endpoints in made-up time. Listen opens
// an endpoint that talks to any other (a server), Dial one that talks to a
// single server (a client); both give a *SimConn, which is a Conn. Links are
// perfect until SetDefaultLink, SetLink or SetPath give them latency, jitter,
// loss, duplication, reordering and a bandwidth cap; Blackout silences an
// endpoint for a while. Nothing moves until the driver calls Advance: it
// sets the network's clock and delivers every datagram due by then.
// NextDelivery says when the next one is due, so a driver can jump there.
// A driver loop in made-up time typically reads:
//
//	for now := start; now.Before(end); now = now.Add(time.Millisecond) {
//		net.Advance(now)
//		server.Update(now) // drains its Conn with Recv, sends replies
//		for _, c := range clients {
//			c.Update(now)
//		}
//	}
//
// The same seed and the same sequence of calls give the same deliveries,
// bit for bit: every random choice comes from a generator per directed
// link. Nothing sleeps and no goroutine is started, so a whole match with
// loss and blackouts runs in milliseconds. NewLoopback is the same network
// with perfect links for real-time single-player play: each datagram is
// delivered during its Send.
//
// # Other transports
//
// The other implementations are packages of their own, beside this one:
// transport/udp (direct UDP with a Noise handshake and sealed datagrams),
// transport/webrtc (WebRTC data channels), and gateway's WebSocket Conn.
// This package holds what they share: Conn and Addr, the errors every
// Conn returns, the optional interfaces a server-side Conn may have
// (Batcher, Handoff, Prover, Stamped) and MultiConn, one Conn over several.
package transport

import "time"

// MaxDatagram is the largest datagram any transport must carry, in bytes
// (the design's MTU; the match protocol's codec.MaxDatagram is the same
// number). Larger sends fail with ErrTooLarge.
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

// Stamped is implemented by a Conn whose datagrams may wait a while
// between their arrival and Recv: a host.Multi's room queue, where inputs
// wait for their room's next tick. RecvStamped is Recv with the time the
// datagram arrived (the zero Time when unknown), so that a server that
// measures how early inputs come, or how long an ack took, measures the
// network and not the wait.
type Stamped interface {
	RecvStamped(p []byte) (n int, from Addr, at time.Time, err error)
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
