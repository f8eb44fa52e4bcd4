package rooms_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testgame"
	"github.com/rewindnet/rewind/internal/testutil"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/server"
)

// TestSpectatorJoinsFullRoom: a room whose match takes one player
// (MaxPlayers 1, which also caps the room at the relay) and has it still
// takes a spectator by its code (rooms.Join with Client.Spectate: the
// relay counts it as a spectator), which verifies ticks that hash as the
// server's; another player is refused with roomproto.ErrRoomFull. Real pion
// peers and a real relay on 127.0.0.1.
func TestSpectatorJoinsFullRoom(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := startRelay(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard
	defer cancel()
	hashes := testutil.NewHostHashes()
	h, err := rooms.Host[testgame.Input](ctx, &testgame.Game{}, rooms.HostOptions{
		Relay:  url,
		Server: server.Config{MaxPlayers: 1, StartPlayers: 1, OnTick: hashes.OnTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	stopHost := testutil.RunHost(ctx, t, h)
	var bad sync.Once
	opts := func(spectate bool) rooms.JoinOptions {
		var o rooms.JoinOptions
		o.Client.Spectate = spectate
		o.Client.OnVerified = func(tick uint32, hash uint64) {
			if sh := hashes.Hash(tick); sh != hash {
				bad.Do(func() { t.Errorf("spectate %v, tick %d: hash %016x, server %016x", spectate, tick, hash, sh) })
			}
		}
		return o
	}
	defer h.Close()
	player, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, h.Code(), opts(false))
	if err != nil {
		t.Fatal(err)
	}
	defer player.Close() // on a failure's way out (Close again is a no-op)
	player.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(0, tick) })
	spec, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, h.Code(), opts(true))
	if err != nil {
		t.Fatalf("spectator in a room full of players: %v", err)
	}
	defer spec.Close()
	if _, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, h.Code(), opts(false)); !errors.Is(err, roomproto.ErrRoomFull) {
		t.Errorf("a second player: %v, want roomproto.ErrRoomFull", err)
	}
	sessions := []*rewind.Session[testgame.Input]{player, spec}
	var wg sync.WaitGroup
	sctx, scancel := context.WithCancel(ctx)
	for i, s := range sessions {
		wg.Go(func() {
			if err := s.Run(sctx); err != nil {
				t.Errorf("session %d: %v", i, err)
			}
		})
	}
	testutil.WaitUntil(ctx, t, "the spectator's 60 verified ticks", func() bool { return spec.Stats().Verified >= 60 })
	scancel()
	wg.Wait()
	if st := h.Stats(); st.Match.Joins != 1 || st.Match.Spectators != 1 {
		t.Errorf("host: %d joins, %d spectators", st.Match.Joins, st.Match.Spectators)
	}
	if _, ok := spec.Player(); ok {
		t.Error("the spectator has a player id")
	}
	for i, s := range sessions {
		if err := s.Close(); err != nil {
			t.Errorf("session %d close: %v", i, err)
		}
	}
	stopHost()
	if err := h.Close(); err != nil {
		t.Errorf("host close: %v", err)
	}
}
