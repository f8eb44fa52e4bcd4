package roomclient

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// Rekey rotates the room's key (issue 43: a key that leaves with the
// player): it draws a fresh 128-bit key, sends it to the relay on the
// room's own connection ("rekey") and returns it once the relay answered
// that it holds ("rekeyed"); Key returns it from then on. The host then
// hands it to the players still in the match (server.Server.SetRoomKey):
// a player who left keeps the old key, which neither claims nor ends the
// room any more (a claim with it within the relay's RekeyGrace of the
// rekey, if the host was lost meanwhile, excepted). It fails if ctx ends
// or the relay connection does first; the key is then unchanged for the
// host (the relay may hold the new one: rekey again). Calls must not
// overlap.
func (h *HostedRoom) Rekey(ctx context.Context) (string, error) {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather)
	key := hex.EncodeToString(b[:])
	rc := h.client()
	for drained := false; !drained; { // a stale answer of an earlier try
		select {
		case <-h.rekeyed:
		default:
			drained = true
		}
	}
	rc.send(&roomproto.Msg{Type: roomproto.MsgRekey, Code: h.code, Key: key})
	for {
		select {
		case got := <-h.rekeyed:
			if got != key {
				continue
			}
			h.mu.Lock()
			h.key = key
			h.mu.Unlock()
			return key, nil
		case <-rc.done:
			return "", fmt.Errorf("relay: rekeying %s: %w", h.code, h.end.err(rc))
		case <-ctx.Done():
			return "", fmt.Errorf("relay: rekeying %s: %w", h.code, ctx.Err())
		}
	}
}
