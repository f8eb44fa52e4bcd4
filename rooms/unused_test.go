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
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
)

// TestServeUnusedRoomsFreed performs issue 30's item 3: an attacker opens
// every slot of an on-demand match server and joins each room once at
// the relay (its join is answered, it never starts a match), holding
// its joiners' connections. Every slot is in use (one more open: full);
// after the unused timeout the server has closed every room and the
// relay has every slot free again, and a lobby's open succeeds.
func TestServeUnusedRoomsFreed(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	testutil.SkipSockets(t)
	url, rs := startRelayServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	const slots = 6
	s, err := rooms.Serve[testgame.Input](ctx, &testgame.Game{}, rooms.ServeOptions{
		Relay: url, MaxMatches: slots, OnDemand: true, UnusedTimeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stopHost := testutil.RunHost(ctx, t, s)
	defer stopHost()
	var joiners []*websocket.Conn
	defer func() {
		for _, ws := range joiners {
			ws.CloseNow()
		}
	}()
	for i := range slots {
		code, err := roomclient.OpenRoom(ctx, url, roomclient.OpenOptions{})
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		ws, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		joiners = append(joiners, ws)
		join := roomproto.Msg{Type: roomproto.MsgJoin, V: roomproto.V1, Code: code}
		if err := ws.Write(ctx, websocket.MessageText, join.Encode()); err != nil {
			t.Fatal(err)
		}
		var m roomproto.Msg
		if _, b, err := ws.Read(ctx); err != nil || json.Unmarshal(b, &m) != nil || m.Type != roomproto.MsgJoined {
			t.Fatalf("join %s: %v %+v", code, err, m)
		}
	}
	if _, err := roomclient.OpenRoom(ctx, url, roomclient.OpenOptions{}); !errors.Is(err, roomproto.ErrFull) {
		t.Fatalf("open with every slot hoarded: %v, want full", err)
	}
	if st := rs.MatchServers(); st.Used != slots {
		t.Fatalf("relay: %d slots used, want %d", st.Used, slots)
	}
	testutil.WaitUntil(ctx, t, "every hoarded slot free", func() bool {
		return len(s.Rooms()) == 0 && rs.MatchServers().Used == 0
	})
	if _, err := roomclient.OpenRoom(ctx, url, roomclient.OpenOptions{}); err != nil {
		t.Fatalf("open after the unused timeout: %v", err)
	}
}
