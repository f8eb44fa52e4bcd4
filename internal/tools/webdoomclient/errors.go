package webdoomclient

import "errors"

var (
	// ErrRefused indicates a WebDoom client whose socket the server
	// terminated (a refusal) or closed.
	ErrRefused = errors.New("webdoom: connection refused or closed")
)
