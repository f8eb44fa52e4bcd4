package loadbot

import (
	"context"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/server"
)

// TestRun: two load bots join a room of a host.Multi on 127.0.0.1 and
// play: the match runs with both, and its player-ticks grow.
func TestRun(t *testing.T) {
	testutil.SkipSockets(t)
	h, err := host.ListenUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", host.Options{
		HostOptions: rewind.HostOptions{Server: server.Config{StartPlayers: 2, MaxPlayers: 2}},
		MaxMatches:  1,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	room, err := h.Open("")
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := h.UDPAddr()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hostDone := make(chan error, 1)
	go func() { hostDone <- h.Run(ctx) }()
	botsDone := make(chan error, 1)
	go func() {
		botsDone <- Run(ctx, Config{Server: addr.String(), Local: "127.0.0.1", Rooms: []string{room, room}, Rate: 60})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for s := h.Stats(); s.Players < 2 || s.Total.PlayerTicks < 120; s = h.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s: %d players, %d player-ticks", s.Players, s.Total.PlayerTicks)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s := h.Stats(); s.Running != 1 {
		t.Errorf("%d matches running", s.Running)
	}
	cancel()
	if err := <-botsDone; err != nil {
		t.Errorf("bots: %v", err)
	}
	<-hostDone
}
