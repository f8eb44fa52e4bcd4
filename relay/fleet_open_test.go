package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// readPonging reads ws until it fails, answering the relay's pings;
// every other message comes on the returned channel, closed at the end.
func readPonging(ws *websocket.Conn) <-chan roomproto.Msg {
	ch := make(chan roomproto.Msg, 64)
	go func() {
		defer close(ch)
		for {
			_, b, err := ws.Read(context.Background())
			if err != nil {
				return
			}
			m, _ := decodeReply(b)
			if m.Type == roomproto.MsgPing {
				_ = ws.Write(context.Background(), websocket.MessageText, []byte(fmt.Sprintf(`{"type":"pong","n":%d}`, m.N)))
				continue
			}
			ch <- m
		}
	}()
	return ch
}

// rawServe registers a match server at url over a bare WebSocket,
// answering the relay's pings; the other messages it gets come on msgs.
func rawServe(t *testing.T, url string, slots int) (ws *websocket.Conn, msgs <-chan roomproto.Msg) {
	t.Helper()
	ws = dialRaw(t, url)
	writeRaw(t, ws, fmt.Sprintf(`{"type":"serve","v":2,"slots":%d,"onDemand":true}`, slots))
	_, b, err := ws.Read(testCtx(t))
	if m, _ := decodeReply(b); err != nil || m.Type != roomproto.MsgServing {
		t.Fatalf("serve: %s %v", b, err)
	}
	return ws, readPonging(ws)
}

// rawOpen asks url for a room on demand from a new lobby connection and
// returns the lobby's messages.
func rawOpen(t *testing.T, url string) <-chan roomproto.Msg {
	t.Helper()
	ws := dialRaw(t, url)
	t.Cleanup(func() { ws.CloseNow() })
	ch := rawReader(ws)
	writeRaw(t, ws, `{"type":"open","v":2}`)
	return ch
}

// TestRedisFleetOpen: a lobby's open at a relay with no match server is
// placed, through the slots each relay publishes in Redis, on a match
// server connected to another relay of the fleet: the server gets the
// open there, the lobby its code and key back through its own relay, and
// a player joins the room through the lobby's relay. With every slot of
// the fleet in use, the lobby is refused full with the fleet's count. The
// lobby ends the room with its key through its own relay: the end is
// made at the room's relay (server and player hear it, the slot frees).
// A server that leaves takes its slots out of Redis.
func TestRedisFleetOpen(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := testutil.StartRedis(t)
	cfg, rcfg := RoomConfig{TickInterval: 50 * time.Millisecond}, roomdir.RedisConfig{TTL: 2 * time.Second}
	r1, dir1, _ := startFleetRelayWith(t, url, cfg, rcfg)
	r2, _, _ := startFleetRelayWith(t, url, cfg, rcfg)
	ctx := testCtx(t)

	if m := nextRaw(t, rawOpen(t, r2.url)); m.Error != roomproto.ErrCodeFull || !strings.Contains(m.Reason, "0 match server(s) take rooms on demand in the fleet") {
		t.Fatalf("open with no match server in the fleet: %+v", m)
	}
	srv, smsgs := rawServe(t, r1.url, 1)
	testutil.WaitUntil(ctx, t, "relay 1 to publish its server's slot", func() bool {
		s, ok := dir1.SlotsOf(dir1.Self())
		return ok && s == roomdir.Slots{Servers: 1, Slots: 1, Used: 0}
	})
	lobby := rawOpen(t, r2.url)
	open := nextRaw(t, smsgs)
	if open.Type != roomproto.MsgOpen || !roomcode.ValidLen(open.Code) || len(open.Key) != roomproto.KeyHexLen {
		t.Fatalf("the server got %+v, want open", open)
	}
	writeRaw(t, srv, fmt.Sprintf(`{"type":"opened","code":%q}`, open.Code))
	if m := nextRaw(t, lobby); m.Type != roomproto.MsgOpened || m.Code != open.Code || m.Key != open.Key {
		t.Fatalf("the lobby got %+v, want opened %s with its key", m, open.Code)
	}
	_, joined, pmsgs := rawJoin(t, r2.url, open.Code)
	if m := nextRaw(t, smsgs); m.Type != roomproto.MsgPlayer || m.Code != open.Code || m.ID != joined.ID {
		t.Fatalf("the server got %+v, want player %s of %s", m, joined.ID, open.Code)
	}
	testutil.WaitUntil(ctx, t, "relay 1 to publish the slot in use", func() bool {
		s, ok := dir1.SlotsOf(dir1.Self())
		return ok && s == roomdir.Slots{Servers: 1, Slots: 1, Used: 1}
	})
	if m := nextRaw(t, rawOpen(t, r2.url)); m.Error != roomproto.ErrCodeFull || !strings.Contains(m.Reason, "1 match server(s) take rooms on demand in the fleet, 1 of 1 slots in use") {
		t.Fatalf("open with the fleet's slot in use: %+v", m)
	}
	if st := r2.srv.MatchServers(); st.Forwarded != 1 || st.Full != 2 {
		t.Errorf("the lobby's relay: %+v, want 1 open forwarded and 2 full", st)
	}
	if st := r1.srv.MatchServers(); st.Opened != 1 || st.Used != 1 {
		t.Errorf("the server's relay: %+v, want 1 opened, 1 slot used", st)
	}
	// The lobby ends the room with its key through its own relay: it
	// ends at the server's relay, and the server and the player hear it.
	if err := roomclient.EndRoom(ctx, r2.url, open.Code, open.Key); err != nil {
		t.Fatalf("the lobby's end: %v", err)
	}
	if m := nextRaw(t, smsgs); m.Type != roomproto.MsgEnded || m.Code != open.Code {
		t.Fatalf("the server got %+v, want ended %s", m, open.Code)
	}
	if m := nextRaw(t, pmsgs); m.Type != roomproto.MsgEnded {
		t.Fatalf("the player got %+v, want ended", m)
	}
	testutil.WaitUntil(ctx, t, "relay 1 to publish the slot free", func() bool {
		s, ok := dir1.SlotsOf(dir1.Self())
		return ok && s == roomdir.Slots{Servers: 1, Slots: 1, Used: 0}
	})
	if err := roomclient.EndRoom(ctx, r2.url, open.Code, open.Key); !errors.Is(err, roomproto.ErrRoomEnded) {
		t.Errorf("a second end: %v, want room_ended", err)
	}
	srv.CloseNow()
	testutil.WaitUntil(ctx, t, "relay 1 to take its slots out", func() bool {
		_, ok := dir1.SlotsOf(dir1.Self())
		return !ok
	})
}

// TestRedisFleetOpenDeadRelay: the slots of a relay that died (its
// liveness key gone) are not offered, though its slots key has not
// expired yet: a lobby's open through a live relay is refused full.
func TestRedisFleetOpenDeadRelay(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := testutil.StartRedis(t)
	cfg, rcfg := RoomConfig{TickInterval: 50 * time.Millisecond}, roomdir.RedisConfig{TTL: 3 * time.Second}
	r1, dir1, crash1 := startFleetRelayWith(t, url, cfg, rcfg)
	r2, dir2, _ := startFleetRelayWith(t, url, cfg, rcfg)
	ctx := testCtx(t)
	srv, _ := rawServe(t, r1.url, 2)
	defer srv.CloseNow()
	testutil.WaitUntil(ctx, t, "relay 2 to see relay 1's slots", func() bool {
		relay, _, ok := dir2.PickRelay()
		return ok && relay == dir1.Self()
	})
	crash1()
	testutil.WaitUntil(ctx, t, "relay 1 to be found dead", func() bool {
		alive, ok := dir2.Alive([]string{dir1.Self()})
		return ok && !alive[0]
	})
	if _, ok := dir2.SlotsOf(dir1.Self()); !ok {
		t.Log("relay 1's slots expired before its liveness: the check below proves less")
	}
	if m := nextRaw(t, rawOpen(t, r2.url)); m.Error != roomproto.ErrCodeFull || !strings.Contains(m.Reason, "0 match server(s)") {
		t.Fatalf("open with the only server's relay dead: %+v", m)
	}
}
