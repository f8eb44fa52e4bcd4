package roomclient

import (
	"context"
	"errors"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// JoinAgain joins the room opts.Code again, by its code as at first,
// after its host was lost (host migration), and returns once the data
// channel to whoever hosts the room now is open: what a spectator
// (opts.Spectator) does, which holds no key to claim the room with.
// Until a player took the match over, the
// relay answers roomproto.ErrRoomBusy (the room is orphaned, or claims
// wait for the relay's probe of the old host) or, at a relay that forgot
// the room, roomproto.ErrNoRoom; those and any other failure are tried
// again, a little later each time (100 ms, doubling up to a second),
// until the room ended (roomproto.ErrRoomEnded, returned) or ctx ends
// (the last failure returned).
func JoinAgain(ctx context.Context, opts JoinOptions) (*RoomPlayer, error) {
	var pause Backoff
	for {
		p, err := JoinRoom(ctx, opts)
		if err == nil || errors.Is(err, roomproto.ErrRoomEnded) || ctx.Err() != nil {
			return p, err
		}
		if !pause.Wait(ctx) {
			return nil, err
		}
	}
}
