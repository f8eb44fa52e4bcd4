package relay

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// TestHubOpenLimits: a lobby's burst of opens from one address goes
// through (10 with the defaults, at least the 3 a lobby needs), the
// next is refused rate_limited, and one comes back every 5 s; a
// connection gets 4 opens at most; an open refused "full" costs nothing.
func TestHubOpenLimits(t *testing.T) {
	h := newTestHub(RoomConfig{})
	srv := startServer(t, h, "10.0.0.1", 1000, true)
	for i := range 12 {
		lobby := mustConnect(t, h, "10.9.0.1")
		sendMsg(h, lobby, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, t0)
		if i < 10 {
			m := next(t, srv)
			if m.Type != roomproto.MsgOpen {
				t.Fatalf("open %d: server got %+v", i, m)
			}
			sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgOpened, Code: m.Code}, t0)
			if m := next(t, lobby); m.Type != roomproto.MsgOpened {
				t.Fatalf("open %d: lobby got %+v", i, m)
			}
			continue
		}
		wantErr(t, lobby, roomproto.ErrCodeRateLimited, true)
		noMsg(t, srv)
	}
	lobby := mustConnect(t, h, "10.9.0.1")
	sendMsg(h, lobby, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, t0.Add(5*time.Second))
	if m := next(t, srv); m.Type != roomproto.MsgOpen {
		t.Fatalf("open after 5 s: server got %+v", m)
	}
	// Another address is not affected; one connection gets 4.
	other := mustConnect(t, h, "10.9.0.2")
	for i := range 5 {
		sendMsg(h, other, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, t0)
		if i == 4 {
			wantErr(t, other, roomproto.ErrCodeRateLimited, true)
			break
		}
		m := next(t, srv)
		sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgOpened, Code: m.Code}, t0)
		if m := next(t, other); m.Type != roomproto.MsgOpened {
			t.Fatalf("open %d on one connection: %+v", i, m)
		}
	}
	// Full opens cost nothing: 30 of them, then an open still goes through.
	h2 := newTestHub(RoomConfig{})
	for range 30 {
		l := mustConnect(t, h2, "10.9.0.3")
		sendMsg(h2, l, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, t0)
		wantErr(t, l, roomproto.ErrCodeFull, false)
	}
	srv2 := startServer(t, h2, "10.0.0.1", 1, true)
	l := mustConnect(t, h2, "10.9.0.3")
	sendMsg(h2, l, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, t0)
	if m := next(t, srv2); m.Type != roomproto.MsgOpen {
		t.Fatalf("after 30 full opens: server got %+v", m)
	}
}

// TestHubRoomCaps: hosts from one address get RoomsPerAddr rooms, the
// next is refused too_many_rooms (its connection stays), another address
// still hosts; a room that ends frees its place; the relay's MaxRooms
// refuses any address's host and a lobby's open.
func TestHubRoomCaps(t *testing.T) {
	h := newTestHub(RoomConfig{RoomsPerAddr: 3, MaxRooms: 5, ConnsPerAddr: 100})
	var hosts []*roomConn
	for i := range 4 {
		c := mustConnect(t, h, "10.0.0.1")
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
		if i == 3 {
			wantErr(t, c, roomproto.ErrCodeTooManyRooms, false)
			break
		}
		if m := next(t, c); m.Type != roomproto.MsgHosted {
			t.Fatalf("host %d: %+v", i, m)
		}
		hosts = append(hosts, c)
	}
	// A match server from the same address is capped the same way.
	srv := startServer(t, h, "10.0.0.1", 10, true)
	sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
	wantErr(t, srv, roomproto.ErrCodeTooManyRooms, false)
	h.disconnect(hosts[0], t0)
	sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
	if m := next(t, srv); m.Type != roomproto.MsgHosted {
		t.Fatalf("after a room ended: %+v", m)
	}
	for i := range 2 {
		c := mustConnect(t, h, fmt.Sprintf("10.0.1.%d", i))
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
		if m := next(t, c); m.Type != roomproto.MsgHosted {
			t.Fatalf("other address %d: %+v", i, m)
		}
	}
	c := mustConnect(t, h, "10.0.2.1")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
	wantErr(t, c, roomproto.ErrCodeTooManyRooms, false)
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, t0)
	wantErr(t, c, roomproto.ErrCodeTooManyRooms, false)
	if got := len(h.caps.perAddr); got != 3 {
		t.Fatalf("%d addresses counted, want 3", got)
	}
}
