package webrtc

import "errors"

var (
	// ErrBadSignal indicates a signaling message that does not fit the
	// connection's state or that pion rejected (a bad SDP or candidate).
	ErrBadSignal = errors.New("webrtc: bad signal")
	// ErrNotConnected indicates a peer whose data channel did not open:
	// its connection failed or was closed first.
	ErrNotConnected = errors.New("webrtc: peer not connected")
)
