package rewind

import "github.com/rewindnet/rewind/client"

var (
	// ErrNotDeterministic indicates a game that stepped the same tick from
	// the same world and inputs to two different worlds (SyncTest).
	ErrNotDeterministic = client.ErrNotDeterministic
	// ErrRefused indicates the server refused to admit this player.
	ErrRefused = client.ErrRefused
	// ErrTimeout indicates a server not heard from for too long.
	ErrTimeout = client.ErrTimeout
	// ErrKicked indicates the server ended this player's connection.
	ErrKicked = client.ErrKicked
	// ErrClosed indicates a closed session.
	ErrClosed = client.ErrClosed
)
