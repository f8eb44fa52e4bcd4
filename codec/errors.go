package codec

import (
	"errors"
	"fmt"

	"github.com/rewindnet/rewind/codec/inputs"
)

// Truncated input is reported as io.ErrUnexpectedEOF (possibly wrapped);
// the errors below are the other ways bytes or values can be bad.
var (
	// Errors of rewind's messages and their framing.

	// ErrMalformed indicates bytes that are not a valid encoding (a bad
	// code, a value out of range, a non-canonical form, trailing bytes).
	// It is inputs.ErrMalformed, which the input coding inside a message
	// reports.
	ErrMalformed = inputs.ErrMalformed
	// ErrUnknownType indicates a datagram whose type byte names no message.
	ErrUnknownType = errors.New("codec: unknown message type")
	// ErrWrongType indicates a datagram parsed as a message of another type.
	ErrWrongType = errors.New("codec: wrong message type")
	// ErrBadMagic indicates a long-header datagram without rewind's magic.
	ErrBadMagic = errors.New("codec: bad magic")
	// ErrVersion indicates a protocol version this codec does not speak.
	ErrVersion = errors.New("codec: unsupported protocol version")
	// ErrTooLarge indicates a message that would not fit in one datagram
	// (MaxDatagram bytes), or a count beyond a protocol limit.
	ErrTooLarge = errors.New("codec: too large")
	// ErrPlayer indicates a player id out of range, a join of a present
	// player or a leave of an absent one.
	ErrPlayer = errors.New("codec: bad player id")
	// ErrTickWindow indicates a tick number far outside the receiver's window.
	ErrTickWindow = errors.New("codec: tick outside window")
	// ErrTag indicates a short-header datagram whose connection tag is not
	// the receiver's: a stray or stale datagram.
	ErrTag = errors.New("codec: connection tag mismatch")

	// Errors of replay files (replay.go).

	// ErrReplayCorrupt indicates replay bytes that are all there but
	// wrong: a bad magic or version, a header or frame failing its
	// checksum, a payload that does not decompress or decode.
	ErrReplayCorrupt = errors.New("codec: corrupt replay")
	// ErrReplayTruncated indicates a replay file that ends inside its
	// header or a frame: the tail of a recorder that stopped mid-write.
	ErrReplayTruncated = errors.New("codec: replay ends inside a frame")
)

func errMalformedf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}
