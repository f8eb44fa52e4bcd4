package rooms_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
)

// A match hosted in a room of a rooms relay, and a player who joins it by
// the room code: match traffic goes over a WebRTC data channel between
// them, which the relay introduced.
func ExampleHost() {
	// A relay (`rewind relay` runs the same, with TURN).
	rs := relay.NewRoomServer(relay.RoomConfig{})
	defer rs.Close()
	mux := http.NewServeMux()
	mux.Handle(roomproto.Path, rs)
	hs := httptest.NewServer(mux)
	defer hs.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + roomproto.Path

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// The host: `rewind serve --relay URL` does this.
	host, err := rooms.Host[testgame.Input](ctx, &testgame.Game{}, rooms.HostOptions{Relay: url})
	if err != nil {
		panic(err)
	}
	defer host.Close()
	hctx, stopHost := context.WithCancel(ctx)
	hostDone := make(chan error, 1)
	go func() { hostDone <- host.Run(hctx) }()

	// A player, by code: `rewind play --headless --join CODE --relay URL`.
	s, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, host.Code(), rooms.JoinOptions{})
	if err != nil {
		panic(err)
	}
	s.SetInput(testgame.Input{DX: 1})
	pctx, stopPlayer := context.WithCancel(ctx)
	playerDone := make(chan error, 1)
	go func() { playerDone <- s.Run(pctx) }()
	for s.Stats().Verified < 30 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	stopPlayer()
	<-playerDone
	st := s.Stats()
	fmt.Println("verified 30 ticks:", st.Verified >= 30, "desyncs:", st.Desyncs)
	s.Close()
	stopHost()
	<-hostDone
	fmt.Println("players who joined:", host.Stats().Total.Joins)
	// Output:
	// verified 30 ticks: true desyncs: 0
	// players who joined: 1
}
