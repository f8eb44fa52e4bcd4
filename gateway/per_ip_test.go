package gateway_test

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestMaxPlayersPerIP: the match's per-address cap counts JSON players
// (issue 30 item 5: 14 JSON sockets from one address took all 16 slots
// with --max-players-per-ip 2). Two sockets from 127.0.0.1 play, the
// next 12 are refused full; a socket closed before its initial_state
// frees its slot at once (no resume token: nothing to wait for).
func TestMaxPlayersPerIP(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	m := newMatchServer(t, rewind.ServerConfig{MaxPlayers: 16, StartPlayers: 1, MaxPlayersPerIP: 2},
		gateway.Config[walkers.Input]{ResumeWait: 10 * time.Millisecond})
	ctx := timeout(t, 30*time.Second)
	var in []*jsonClient
	for range 2 {
		c := newJSONClient(t, dial(ctx, t, m.url))
		if _, err := c.next(ctx, "initial_state"); err != nil {
			t.Fatal(err)
		}
		in = append(in, c)
	}
	for i := range 12 {
		c := newJSONClient(t, dial(ctx, t, m.url))
		if code := c.expectError(ctx); code != gateway.CodeFull {
			t.Fatalf("socket %d from the capped address: %s, want full", i+3, code)
		}
		c.ws.CloseNow()
	}
	if s := m.gw.Stats(); s.Full != 12 || s.Players > 2 {
		t.Fatalf("stats %+v: want 12 full, at most 2 players", s)
	}
	for _, c := range in {
		c.ws.CloseNow()
	}
}
