package relay

import "errors"

// Errors of the WebDoom relay.
var (
	// ErrWebDoomClosed indicates a WebDoomServer used after Close.
	ErrWebDoomClosed = errors.New("relay: webdoom server closed")
	// ErrWebDoomRefused indicates a WebDoom client whose socket the server
	// terminated (a refusal) or closed.
	ErrWebDoomRefused = errors.New("relay: webdoom connection refused or closed")
)
