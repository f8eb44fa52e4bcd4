package host_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/server"
)

// TestMultiLongCodes: rooms of 6, 8 and 12 characters on one UDP socket
// (a relay's --code-length 7 to 12 draws such codes) are each reached
// over UDP by the code in the hello (the 6-character one in the hello's
// short form, the others in its long form, codec.Hello), one player each
// verifying ticks in its own room; a code that differs from a room's
// only by its last character is refused (no room).
func TestMultiLongCodes(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h, err := host.ListenUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", host.Options{
		HostOptions: rewind.HostOptions{Server: server.Config{StartPlayers: 1}},
		MaxMatches:  3,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var codes []string
	for _, c := range []string{"K3F9QX", "k3f9qxz2", "ABCDEFGHJKLM"} {
		code, err := h.Open(c)
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, code)
	}
	addr, _ := h.UDPAddr()
	stop := testutil.RunHost(ctx, t, h)
	defer stop()
	for i, code := range []string{"K3F9QX", "k3f9qxz2", "ABCDEFGHJKLM"} {
		if _, err := playRoom(ctx, addr.String(), code, game.PlayerID(i), 30); err != nil {
			t.Fatalf("room %s: %v", code, err)
		}
		if st, ok := h.RoomStats(codes[i]); !ok || st.Total.Joins != 1 {
			t.Errorf("room %s: %+v (ok %v), want its one player", codes[i], st, ok)
		}
	}
	_, err = playRoom(ctx, addr.String(), "K3F9QXZ3", 1, 10)
	var re *rewind.RefusedError
	if !errors.As(err, &re) || re.Reason != rewind.ReasonNoRoom {
		t.Errorf("join K3F9QXZ3: %v, want refused (no such room)", err)
	}
}
