package console

import "errors"

var (
	// ErrUnsupported is returned by an Actor for an action its process
	// cannot carry out (the console answers 501).
	ErrUnsupported = errors.New("console: action not supported here")
	// ErrNotFound is returned by an Actor for an unknown room or player
	// (the console answers 404).
	ErrNotFound = errors.New("console: no such room or player")
	// ErrToken is returned by LoadToken for a missing, unreadable or too
	// short token file.
	ErrToken = errors.New("console: admin token")
)
