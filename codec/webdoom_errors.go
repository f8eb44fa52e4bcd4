package codec

import "errors"

// Errors of the WebDoom formats (webdoom_*.go). They live here, apart from
// the rest of the codec's errors, so that the WebDoom wire code stays in
// its own files.
var (
	// ErrWebDoomTruncated indicates a WebDoom binary message shorter than
	// its fixed layout.
	ErrWebDoomTruncated = errors.New("codec: webdoom message truncated")
	// ErrWebDoomSize indicates a WebDoom binary message whose length is not
	// exactly the size of its type (the relay ignores such messages).
	ErrWebDoomSize = errors.New("codec: webdoom message has the wrong size")
	// ErrWebDoomJSON indicates a WebDoom lobby message that is not JSON
	// (or is JSON null, which WebDoom's server cannot act on either); the
	// lobby ignores it.
	ErrWebDoomJSON = errors.New("codec: webdoom lobby message is not a JSON value")
	// ErrWebDoomTooLong indicates a WebDoom lobby message over
	// WebDoomLobbyMaxMessage bytes.
	ErrWebDoomTooLong = errors.New("codec: webdoom lobby message too long")
)
