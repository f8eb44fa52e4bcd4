package rooms_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// TestServeTokenAttack performs issue 30's item 1 on loopback: on a
// relay with a server token, an attacker registers as an on-demand
// match server with 1,024 slots and no token (refused unauthorized, its
// connection closed: it gets no open and no signaling), and another
// replays a proof it saw on an earlier connection (refused too); a
// server without the token gets ErrUnauthorized; the real server's
// opens all succeed and a player joins one and plays.
func TestServeTokenAttack(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	token := []byte("the-fleet-server-token-0123456789")
	url, _ := startRelayWith(t, relay.RoomConfig{ServerToken: token})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()

	attack := func(auth func(nonce string) string) []roomproto.Msg {
		ws, resp, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		nonce := resp.Header.Get(roomproto.NonceHeader)
		if len(nonce) != 32 {
			t.Fatalf("nonce %q", nonce)
		}
		m := roomproto.Msg{Type: roomproto.MsgServe, V: 2, Slots: 1024, OnDemand: true, Auth: auth(nonce)}
		if err := ws.Write(ctx, websocket.MessageText, m.Encode()); err != nil {
			t.Fatal(err)
		}
		var got []roomproto.Msg
		for { // everything the relay says until it closes the connection
			_, b, err := ws.Read(ctx)
			if err != nil {
				return got
			}
			var m roomproto.Msg
			_ = json.Unmarshal(b, &m)
			got = append(got, m)
		}
	}
	seen := roomproto.ServerProof(token, "a nonce of an earlier connection")
	for name, auth := range map[string]func(string) string{
		"no token": func(string) string { return "" },
		"replayed": func(string) string { return seen },
	} {
		got := attack(auth)
		if len(got) != 1 || got[0].Type != roomproto.MsgError || got[0].Error != roomproto.ErrCodeUnauthorized {
			t.Fatalf("attacker (%s) heard %+v, want only unauthorized", name, got)
		}
	}
	if _, err := rooms.Serve[testgame.Input](ctx, &testgame.Game{}, rooms.ServeOptions{
		Relay: url, MaxMatches: 4, OnDemand: true,
	}); !errors.Is(err, roomproto.ErrUnauthorized) {
		t.Fatalf("serve without the token: %v, want ErrUnauthorized", err)
	}

	s, err := rooms.Serve[testgame.Input](ctx, &testgame.Game{}, rooms.ServeOptions{
		Relay: url, MaxMatches: 4, OnDemand: true, ServerToken: token,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stopHost := testutil.RunHost(ctx, t, s)
	defer stopHost()
	var codes []string
	for i := range 3 {
		code, err := roomclient.OpenRoom(ctx, url, roomclient.OpenOptions{})
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		codes = append(codes, code)
	}
	if got := s.Rooms(); len(got) != 3 {
		t.Fatalf("the real server holds %v, opened %v", got, codes)
	}
	conn, err := rooms.Dial(ctx, url, codes[0], webrtc.Config{})
	if err != nil {
		t.Fatalf("joining %s: %v", codes[0], err)
	}
	conn.Close()
}
