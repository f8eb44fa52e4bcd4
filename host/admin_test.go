package host_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/server"
)

// TestMultiAdmin: the operator's actions on a Multi's rooms. A room's
// match ended by the operator (EndMatch) ends its player's session with
// the operator's reason, after every tick; a room ended with EndRoom does
// likewise and is gone; a removed player is kicked; a closed room
// refuses a newcomer (full); unknown codes are ErrNoRoom.
func TestMultiAdmin(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h, err := host.ListenUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", host.Options{
		HostOptions: rewind.HostOptions{Server: server.Config{StartPlayers: 1}}, MaxMatches: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var codes []string
	for range 3 {
		c, err := h.Open("")
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, c)
	}
	addr, _ := h.UDPAddr()
	stop := testutil.RunHost(ctx, t, h)
	defer stop()
	errs := make([]chan error, 3)
	for i, code := range codes {
		errs[i] = make(chan error, 1)
		go func() {
			_, err := playRoom(ctx, addr.String(), code, 1, 1<<30)
			errs[i] <- err
		}()
	}
	for _, code := range codes {
		testutil.WaitUntil(ctx, t, "a player in room "+code, func() bool {
			peers, ok := h.RoomPeers(code)
			return ok && len(peers) == 1 && peers[0].Present && peers[0].BytesIn > 0
		})
	}
	if err := h.EndMatch(codes[0]); err != nil {
		t.Fatal(err)
	}
	var e *rewind.EndedError
	if err := <-errs[0]; !errors.As(err, &e) || !e.Operator || !e.Complete() {
		t.Errorf("the match the operator ended: %v", err)
	}
	if err := h.EndRoom(codes[1], codec.ReasonOperator); err != nil {
		t.Fatal(err)
	}
	if err := <-errs[1]; !errors.As(err, &e) || !e.Operator {
		t.Errorf("the room the operator ended: %v", err)
	}
	if _, ok := h.RoomPeers(codes[1]); ok {
		t.Error("the ended room is still open")
	}
	if err := h.SetRoomClosed(codes[2], true); err != nil {
		t.Fatal(err)
	}
	var re *rewind.RefusedError
	if _, err := playRoom(ctx, addr.String(), codes[2], 2, 10); !errors.As(err, &re) || re.Reason != rewind.ReasonFull {
		t.Errorf("a newcomer to a closed room: %v", err)
	}
	if closed, ok := h.RoomClosed(codes[2]); !closed || !ok {
		t.Errorf("RoomClosed = %v, %v", closed, ok)
	}
	if err := h.RemovePlayer(codes[2], 0); err != nil {
		t.Fatal(err)
	}
	if err := <-errs[2]; !errors.Is(err, rewind.ErrKicked) || errors.Is(err, rewind.ErrMatchEnded) {
		t.Errorf("the removed player: %v", err)
	}
	for _, err := range []error{h.EndMatch("ZZZZZZ"), h.RemovePlayer(codes[1], 0), h.SetRoomClosed("ZZZZZZ", true), h.EndRoom(codes[1], codec.ReasonEnded)} {
		if !errors.Is(err, host.ErrNoRoom) {
			t.Errorf("an unknown room: %v, want ErrNoRoom", err)
		}
	}
}
