package client

import (
	"errors"

	"github.com/rewindnet/rewind/codec"
)

var (
	// ErrConfig indicates an invalid setting or argument.
	ErrConfig = errors.New("client: bad configuration")
	// ErrNotDeterministic indicates a game that stepped the same tick from
	// the same world with the same inputs to two different worlds.
	ErrNotDeterministic = errors.New("client: game is not deterministic")
	// ErrRefused indicates the server refused the client's hello.
	ErrRefused = errors.New("client: refused by the server")
	// ErrTimeout indicates a server not heard from for ServerTimeout.
	ErrTimeout = errors.New("client: server timed out")
	// ErrKicked indicates the server ended the client's connection (a bye).
	ErrKicked = errors.New("client: dropped by the server")
	// ErrHostLeaving indicates the server said bye because it leaves
	// while the match goes on at another host (codec.ReasonMigrate: host
	// migration). The error also wraps ErrKicked, as every bye does.
	ErrHostLeaving = errors.New("client: server leaving, the match goes on elsewhere")
	// ErrChatFull indicates a match message that cannot be queued: too
	// long for the wire (codec.MaxChatText), or 64 messages already wait
	// for the server's acknowledgement.
	ErrChatFull = errors.New("client: match message too long or too many waiting")
	// ErrClosed indicates a client that was closed or said bye.
	ErrClosed = errors.New("client: closed")
)

// RefusedError is the error of a hello the server refused, with the
// server's reason (full, incompatible protocol, incompatible game, bad
// cookie). errors.Is(err, ErrRefused) holds for it; errors.As finds it.
type RefusedError struct {
	Reason codec.Reason
}

// Error names the reason.
func (e *RefusedError) Error() string { return "client: refused by the server: " + e.Reason.String() }

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }
