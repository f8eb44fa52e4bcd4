package relay

import "errors"

var (
	// Errors of the rooms relay's client side;
	// the protocol's errors (ErrNoRoom, ...) are package roomproto's.

	// ErrNoAnswer indicates a relay that did not answer a request in time.
	ErrNoAnswer = errors.New("relay: no answer")
)
