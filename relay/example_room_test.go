package relay_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/relay/turn"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// A match host registers a room, a player joins it by code, and a datagram
// crosses the WebRTC data channel that the relay introduced them over.
func Example() {
	// The relay (`rewind relay` runs the same): rooms over WebSocket, TURN.
	ts, err := turn.Start(turn.Config{Listen: "127.0.0.1:0"})
	if err != nil {
		panic(err)
	}
	defer ts.Close()
	rooms := relay.NewRoomServer(relay.RoomConfig{TURN: ts})
	defer rooms.Close()
	mux := http.NewServeMux()
	mux.Handle(roomproto.Path, rooms)
	hs := httptest.NewServer(mux)
	defer hs.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + roomproto.Path

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// The host: its Conn takes every player of the room.
	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: url})
	if err != nil {
		panic(err)
	}
	defer host.Close()

	// A player, by code: its Conn talks to the host.
	player, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: url, Code: host.Code()})
	if err != nil {
		panic(err)
	}
	defer player.Close()

	conn := player.Conn()
	_ = conn.Send(conn.RemoteAddr(), []byte("hello"))

	buf := make([]byte, transport.MaxDatagram)
	for {
		n, from, err := host.Conn().Recv(buf)
		if errors.Is(err, transport.ErrWouldBlock) {
			<-host.Conn().Ready()
			continue
		}
		fmt.Println(from == webrtc.PeerAddr(player.ID()), string(buf[:n]))
		break
	}
	// Output: true hello
}
