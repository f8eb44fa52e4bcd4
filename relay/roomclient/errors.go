package roomclient

import (
	"errors"
	"fmt"

	"github.com/rewindnet/rewind/relay/roomproto"
)

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

// ErrNoRelay indicates a relay URL where nothing listens (the connection
// was refused, or the name does not resolve): a DialError's Kind.
var ErrNoRelay = errors.New("relay: no relay at the URL")

// ErrNotRooms indicates a relay URL where an HTTP server answers but
// refuses the WebSocket upgrade (a URL without the rooms path, a server
// that is not a relay): a DialError's Kind.
var ErrNotRooms = errors.New("relay: not a rooms relay's URL")

// DialError is a relay dial that failed in a way a user can fix: nothing
// listens at URL (Kind ErrNoRelay) or what answers there is not the
// rooms relay's WebSocket (Kind ErrNotRooms, Status the HTTP status). Its
// message is one line saying what to do; it unwraps to Kind and to the
// dial's error.
type DialError struct {
	// URL is the URL dialed.
	URL string
	// Kind is ErrNoRelay or ErrNotRooms.
	Kind error
	// Status is the HTTP status that answered the upgrade (ErrNotRooms;
	// 0 where the platform hides it: a browser).
	Status int
	// Err is the dial's error.
	Err error
}

// Error says what failed and what to do.
func (e *DialError) Error() string {
	if e.Kind == ErrNoRelay {
		return fmt.Sprintf("no relay at %s: start one with `rewind relay` or `rewind demo` (%s)", e.URL, rootCause(e.Err))
	}
	status := "refused the WebSocket"
	if e.Status != 0 {
		status = fmt.Sprintf("answered HTTP %d", e.Status)
	}
	if s := roomsURL(e.URL); s != e.URL {
		return fmt.Sprintf("%s %s, not a rooms relay: did you mean %s?", e.URL, status, s)
	}
	return fmt.Sprintf("%s %s: it is not a rooms relay (`rewind relay` and `rewind demo` print theirs as url=ws://HOST:PORT%s)", e.URL, status, roomproto.Path)
}

// Unwrap returns Kind and the dial's error, for errors.Is.
func (e *DialError) Unwrap() []error { return []error{e.Kind, e.Err} }
