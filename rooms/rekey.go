package rooms

import (
	"context"
	"log/slog"
	"time"

	"github.com/rewindnet/rewind/relay/roomclient"
)

// The room key leaves with the player (issue 43, docs/security.md): a
// host that hosts a room for migration rotates the room's key at the
// relay each time players leave its match (roomclient.HostedRoom.Rekey),
// then hands the new key to the players still in it (the server's
// handover data: SetRoomKey). A player who left, or whom the operator
// removed, holds a key that no longer claims or ends the room.

// rekeyEvery is how often a host looks for players who left.
const rekeyEvery = 250 * time.Millisecond

// rekeyTimeout bounds one rotation at the relay; one that fails is tried
// again at the next look.
const rekeyTimeout = 5 * time.Second

// keyHolder is a match's server that counts departures and takes a new
// room key from any goroutine (server.Server).
type keyHolder interface {
	Departures() uint64
	SetRoomKey(key string)
}

// rotateKeys rotates room's key whenever departures grows, handing each
// new key to setKey, until stop is closed. departures and setKey must be
// safe to call from this goroutine (rewind.Host's and server.Server's
// are).
func rotateKeys(room *roomclient.HostedRoom, departures func() uint64, setKey func(string), stop <-chan struct{}, log *slog.Logger) {
	t := time.NewTicker(rekeyEvery)
	defer t.Stop()
	seen := departures()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		n := departures()
		if n == seen {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), rekeyTimeout)
		go func() { // stop cancels a rotation under way
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		key, err := room.Rekey(ctx)
		cancel()
		if err != nil {
			log.Debug("rooms: rotating the room key failed: trying again", "room", room.Code(), "err", err)
			continue
		}
		setKey(key)
		seen = n
		log.Info("room key rotated: the players who left cannot claim or end the room", "room", room.Code(), "departures", n)
	}
}
