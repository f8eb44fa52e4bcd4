package roomclient

import "errors"

var (
	// Errors of the client side. The relay's refusals come as
	// *roomproto.Error, which unwraps to the protocol's errors
	// (roomproto.ErrNoRoom, ...).

	// ErrNoAnswer indicates a relay that did not answer a request in time.
	ErrNoAnswer = errors.New("relay: no answer")

	// ErrTakenOver indicates a room whose host claimed it back
	// (HostedRoom.Reclaim) while another claimant hosts it now: the
	// players took the match over.
	ErrTakenOver = errors.New("relay: the room is hosted by another claimant")
)
