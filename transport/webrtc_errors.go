package transport

import "errors"

// Errors of the WebRTC transport. (They live apart from errors.go only
// because several engineers wrote this package at once; they may be merged.)
var (
	// ErrBadSignal indicates a signaling message that does not fit the
	// connection's state or that pion rejected (a bad SDP or candidate).
	ErrBadSignal = errors.New("transport: bad webrtc signal")
	// ErrNotConnected indicates a WebRTC peer whose data channel did not
	// open: its connection failed or was closed first.
	ErrNotConnected = errors.New("transport: webrtc peer not connected")
)
