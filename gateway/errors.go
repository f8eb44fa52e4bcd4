package gateway

import "errors"

var (
	// ErrConfig indicates an invalid Config or game.
	ErrConfig = errors.New("gateway: bad configuration")
	// ErrClosed indicates a Gateway that was closed.
	ErrClosed = errors.New("gateway: closed")
	// ErrTooLarge indicates a client message over Config.MaxMessage.
	ErrTooLarge = errors.New("gateway: message too large")
)

// Error codes of the protocol's error message (docs/gateway.md).
const (
	// CodeInvalidInput: malformed JSON, an unknown type or field, a value
	// out of range, a duplicate or decreasing sequence. The message is
	// dropped; the connection stays.
	CodeInvalidInput = "invalid_input"
	// CodeIncompatible: another protocol version (or compatibility).
	CodeIncompatible = "incompatible"
	// CodeFull: no free player slot; the connection then closes.
	CodeFull = "full"
	// CodeRateLimited: more messages than the rate allows; the message is
	// dropped.
	CodeRateLimited = "rate_limited"
	// CodeTooLarge: a message over the size limit; the connection then
	// closes.
	CodeTooLarge = "too_large"
)

// protoError is a refusal of a client message: its code and reason.
type protoError struct {
	code, msg string
}

func (e *protoError) Error() string { return e.code + ": " + e.msg }
