package host

import "errors"

// The errors of a Multi's rooms, to test for with errors.Is.
var (
	// ErrBadRoom indicates a room code that is not 6 to 12 characters of
	// the room-code alphabet (relay/roomcode; Multi.Open).
	ErrBadRoom = errors.New("rewind: bad room code")
	// ErrRoomTaken indicates a room code a Multi already has open.
	ErrRoomTaken = errors.New("rewind: room code taken")
	// ErrTooManyMatches indicates a Multi that holds
	// Options.MaxMatches rooms already.
	ErrTooManyMatches = errors.New("rewind: too many matches")
	// ErrNoRoom indicates a room code no room of the Multi has.
	ErrNoRoom = errors.New("rewind: no such room")
)
