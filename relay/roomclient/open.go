package roomclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// OpenOptions says how to ask a relay for a room on demand.
type OpenOptions struct {
	// MaxPlayers asks the relay to cap the room (0: the match server's
	// cap, or the relay's).
	MaxPlayers int
}

// OpenRoom asks the relay at url to open a room on a match server with a
// free slot (one that registered with ServeOptions.OnDemand) and returns
// its code once the server has opened it; players then join it by the
// code. It fails with roomproto.ErrFull (as a *roomproto.Error whose Reason says why)
// when no match server can take it. In a fleet of relays sharing Redis,
// a relay whose own match servers are full places the room on another
// relay's (OpenRoomWithKey tells the key too).
func OpenRoom(ctx context.Context, url string, opts OpenOptions) (string, error) {
	r, err := OpenRoomWithKey(ctx, url, opts)
	return r.Code, err
}

// OpenedRoom is a room opened on demand, as the relay hands it to the
// lobby that asked for it.
type OpenedRoom struct {
	// Code is what players join the room by.
	Code string
	// Key is the room's key (32 hex digits): it proves the room is the
	// lobby's, which may end it with it (EndRoom) before or during its
	// match. Players need only the code. Empty from a relay of before
	// the key was handed out.
	Key string
	// MaxPlayers is the room's cap on players.
	MaxPlayers int
}

// OpenRoomWithKey is OpenRoom, returning the room's key and cap beside
// its code.
func OpenRoomWithKey(ctx context.Context, url string, opts OpenOptions) (OpenedRoom, error) {
	rc, replies, start, err := dialRoomGated(ctx, url, func(roomproto.Msg) {})
	if err != nil {
		return OpenedRoom{}, err
	}
	defer rc.close()
	start()
	rc.send(&roomproto.Msg{Type: roomproto.MsgOpen, V: roomproto.Version, MaxPlayers: opts.MaxPlayers})
	m, err := firstReply(ctx, rc, replies, roomproto.MsgOpened)
	if err != nil {
		return OpenedRoom{}, fmt.Errorf("relay: opening a room at %s: %w", url, err)
	}
	return OpenedRoom{Code: m.Code, Key: m.Key, MaxPlayers: m.MaxPlayers}, nil
}

// EndRoom ends the room code at the relay at url with its key (any relay
// of a fleet sharing Redis): its players and its host are told it ended,
// a match server frees its slot, and the code is remembered as ended. It
// fails with the relay's refusal (roomproto.ErrNoRoom, roomproto.ErrBadKey, roomproto.ErrRoomEnded).
func EndRoom(ctx context.Context, url, code, key string) error {
	rc, replies, start, err := dialRoomGated(ctx, url, func(roomproto.Msg) {})
	if err != nil {
		return err
	}
	defer rc.close()
	start()
	rc.send(&roomproto.Msg{Type: roomproto.MsgEnd, Code: strings.ToUpper(strings.TrimSpace(code)), Key: key})
	if _, err := firstReply(ctx, rc, replies, roomproto.MsgEnded); err != nil {
		return fmt.Errorf("relay: ending %s at %s: %w", code, url, err)
	}
	return nil
}
