package wire

import "errors"

// Errors of the WebDoom formats. Truncated input also wraps
// io.ErrUnexpectedEOF.
var (
	// ErrTruncated indicates a WebDoom binary message shorter than its
	// fixed layout.
	ErrTruncated = errors.New("webdoom: message truncated")
	// ErrSize indicates a WebDoom binary message whose length is not
	// exactly the size of its type (the relay ignores such messages).
	ErrSize = errors.New("webdoom: message has the wrong size")
	// ErrJSON indicates a WebDoom lobby message that is not JSON (or is
	// JSON null, which WebDoom's server cannot act on either); the lobby
	// ignores it.
	ErrJSON = errors.New("webdoom: lobby message is not a JSON value")
	// ErrTooLong indicates a WebDoom lobby message over LobbyMaxMessage
	// bytes.
	ErrTooLong = errors.New("webdoom: lobby message too long")
)
