package rooms

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// maxReclaimPause caps the wait between two rounds of claims of a room
// whose relay connection dropped.
const maxReclaimPause = 2 * time.Second

// reclaim claims the room back through the relay list after its relay
// connection dropped (HostOptions.HostMigration): reclaimRoom, until
// Close is called. It reports whether the room is hosted again (watch
// the new connection).
func (h *Hosted[I]) reclaim(log *slog.Logger) bool {
	err := reclaimRoom(h.room, h.relays, h.stop, log)
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Warn("room not claimed back: players in the match play on, new ones cannot join by code",
			"room", h.room.Code(), "err", err)
	}
	return err == nil
}

// reclaimRoom claims room back through relays after its relay
// connection dropped, the relays other than the lost one first, round
// after round (100 ms between rounds, doubling up to maxReclaimPause),
// until one hosts it again (nil: watch the new connection), the room
// turns out ended, another match's or taken over by its players
// (roomclient.ErrTakenOver), or stop is closed (context.Canceled).
func reclaimRoom(room *roomclient.HostedRoom, relays []string, stop <-chan struct{}, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	lost := room.URL()
	urls := slices.DeleteFunc(slices.Clone(relays), func(u string) bool { return u == lost || u == "" })
	urls = append(urls, lost) // the lost relay may be back too
	pause := roomclient.Backoff{Max: maxReclaimPause}
	start := time.Now()
	for try := 1; ; try++ {
		err := room.Reclaim(ctx, urls)
		if err == nil {
			log.Info("room claimed back: new players join by the code again", "room", room.Code(),
				"relay", room.URL(), "after", time.Since(start).Round(time.Millisecond), "tries", try)
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, roomproto.ErrRoomEnded) || errors.Is(err, roomproto.ErrBadKey) || errors.Is(err, roomclient.ErrTakenOver) {
			return err
		}
		log.Debug("claiming the room back failed: trying again", "room", room.Code(), "try", try, "err", err)
		if !pause.Wait(ctx) {
			return ctx.Err()
		}
	}
}
