package roomclient

import "errors"

var (
	// Errors of the client side. The relay's refusals come as
	// *roomproto.Error, which unwraps to the protocol's errors
	// (roomproto.ErrNoRoom, ...).

	// ErrNoAnswer indicates a relay that did not answer a request in time.
	ErrNoAnswer = errors.New("relay: no answer")
)
