package roomproto

import "errors"

// Errors of the rooms protocol. A relay error message (type "error",
// MsgError) carries one of the ErrCode* codes; Error unwraps to the
// matching error below. The texts keep the "relay:" prefix they had.
var (
	// ErrNoRoom indicates a room code that names no room.
	ErrNoRoom = errors.New("relay: no such room")
	// ErrRoomFull indicates a room that has as many players as it takes.
	ErrRoomFull = errors.New("relay: room full")
	// ErrRoomBusy indicates a room with too many players joining at once.
	ErrRoomBusy = errors.New("relay: too many players joining the room at once")
	// ErrRoomEnded indicates a room whose match has ended (ended rooms are
	// remembered for a while so that players coming back are told).
	ErrRoomEnded = errors.New("relay: room ended")
	// ErrBadKey indicates a room key that does not match the room's.
	ErrBadKey = errors.New("relay: bad room key")
	// ErrCodeTaken indicates a proposed room code that is in use (or
	// remembered as ended).
	ErrCodeTaken = errors.New("relay: room code taken")
	// ErrBadCode indicates a room code that is not 6 to 12 characters of
	// the code alphabet.
	ErrBadCode = errors.New("relay: bad room code")
	// ErrBadMessage indicates a relay message that is not valid JSON, has
	// an unknown type, lacks a field or does not fit the connection's state.
	ErrBadMessage = errors.New("relay: bad message")
	// ErrTooLarge indicates a relay message longer than the relay's limit.
	ErrTooLarge = errors.New("relay: message too large")
	// ErrRateLimited indicates a connection that sent messages faster than
	// the relay allows.
	ErrRateLimited = errors.New("relay: too many messages")
	// ErrTooManyConns indicates a relay that refuses a connection because
	// the address, or the relay, has too many.
	ErrTooManyConns = errors.New("relay: too many connections")
	// ErrBadVersion indicates a protocol version the relay does not speak.
	ErrBadVersion = errors.New("relay: unsupported protocol version")
	// ErrNoPlayer indicates a signal to a player who is not in the room.
	ErrNoPlayer = errors.New("relay: no such player")
	// ErrHostGone indicates a room whose host stopped answering or left.
	ErrHostGone = errors.New("relay: host gone")
	// ErrRelayClosed indicates a relay connection that closed.
	ErrRelayClosed = errors.New("relay: connection closed")
	// ErrJoinTimeout indicates a joiner dropped from its room before its
	// data channel opened: not within RoomConfig.JoinTimeout, or to make
	// room for newer joiners (JoiningPerAddr, JoinGrace).
	ErrJoinTimeout = errors.New("relay: data channel not open in time")
	// ErrFull indicates a request to open a room on demand that no match
	// server could take: none registered for it, or every one's slots
	// are in use (or the one asked refused or did not answer).
	ErrFull = errors.New("relay: no match server has a free slot")
	// ErrTooManyRooms indicates a relay that refuses a new room because it
	// holds as many rooms as it takes (RoomConfig.MaxRooms), or the host's
	// address does (RoomConfig.RoomsPerAddr).
	ErrTooManyRooms = errors.New("relay: too many rooms")
	// ErrUnauthorized indicates a match server refused by a relay that
	// has a server token: its "serve" did not prove the token (auth.go).
	ErrUnauthorized = errors.New("relay: match server not authenticated: the relay needs its server token")
	// ErrUnavailable indicates a relay whose room directory (the fleet's
	// Redis) does not answer, or has just come back empty and waits for
	// the relays to register their live rooms again: whether the code
	// names a room cannot be told now (try again in a few seconds).
	ErrUnavailable = errors.New("relay: room directory unavailable, try again")
)
