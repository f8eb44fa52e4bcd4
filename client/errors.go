package client

import (
	"errors"
	"fmt"

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
	// ErrMatchEnded indicates the server said bye because the match
	// ended on purpose (codec.ReasonEnded): the error is an *EndedError,
	// which names the match's last tick when the server said it. It also
	// wraps ErrKicked, as every bye does.
	ErrMatchEnded = errors.New("client: the match ended")
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
	// Game is the name of the game the server plays, if it said
	// (codec.Refuse.Game: a registered game's, with ReasonGame).
	Game string
}

// Error names the reason (and the server's game, if it said).
func (e *RefusedError) Error() string {
	if e.Game != "" {
		return "client: refused by the server: " + e.Reason.String() + " (the match plays " + e.Game + ")"
	}
	return "client: refused by the server: " + e.Reason.String()
}

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// EndedError is the error of a bye that ended the match
// (codec.ReasonEnded): errors.Is(err, ErrMatchEnded) and
// errors.Is(err, ErrKicked) hold for it; errors.As finds it. Before the
// error, every tick the client had received was verified.
type EndedError struct {
	// HasLast says the server named the match's last tick, Last (a
	// server that ended the match with Server.End, or said goodbye with
	// ReasonEnded, does); Verified is the last tick this client verified.
	HasLast  bool
	Last     uint32
	Verified uint32
	// Operator says the operator of the server or of its relay ended the
	// match (codec.ReasonOperator; the console's end, docs/operations.md).
	Operator bool
}

// Error says the match ended, at which tick, and how far the client got.
func (e *EndedError) Error() string {
	why := codec.ReasonEnded
	if e.Operator {
		why = codec.ReasonOperator
	}
	if !e.HasLast {
		return fmt.Sprintf("client: server said bye (%v): the match ended (verified tick %d)", why, e.Verified)
	}
	return fmt.Sprintf("client: server said bye (%v): the match ended at tick %d (verified tick %d)", why, e.Last, e.Verified)
}

// Is makes errors.Is(err, ErrMatchEnded) and errors.Is(err, ErrKicked)
// true.
func (e *EndedError) Is(target error) bool { return target == ErrMatchEnded || target == ErrKicked }

// Complete reports whether the server named the match's last tick and the
// client verified it: it has every tick of the match.
func (e *EndedError) Complete() bool { return e.HasLast && e.Verified == e.Last }
