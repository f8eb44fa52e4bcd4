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
// connection dropped (HostOptions.HostMigration), the relays other than
// the lost one first, round after round (100 ms between rounds, doubling
// up to maxReclaimPause), until one hosts it again (true: watch the new
// connection), the room turns out ended, another match's or taken over
// by its players, or Close is called (false).
func (h *Hosted[I]) reclaim(log *slog.Logger) bool {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-h.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	lost := h.room.URL()
	urls := slices.DeleteFunc(slices.Clone(h.relays), func(u string) bool { return u == lost || u == "" })
	urls = append(urls, lost) // the lost relay may be back too
	pause := 100 * time.Millisecond
	start := time.Now()
	for try := 1; ; try++ {
		err := h.room.Reclaim(ctx, urls)
		if err == nil {
			log.Info("room claimed back: new players join by the code again", "room", h.room.Code(),
				"relay", h.room.URL(), "after", time.Since(start).Round(time.Millisecond), "tries", try)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		if errors.Is(err, roomproto.ErrRoomEnded) || errors.Is(err, roomproto.ErrBadKey) || errors.Is(err, roomclient.ErrTakenOver) {
			log.Warn("room not claimed back: players in the match play on, new ones cannot join by code",
				"room", h.room.Code(), "err", err)
			return false
		}
		log.Debug("claiming the room back failed: trying again", "room", h.room.Code(), "try", try, "err", err)
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		pause = min(2*pause, maxReclaimPause)
	}
}
