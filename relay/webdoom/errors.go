package webdoom

import "errors"

var (
	// ErrClosed indicates a Server used after Close.
	ErrClosed = errors.New("webdoom: server closed")
)
