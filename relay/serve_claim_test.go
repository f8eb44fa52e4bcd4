package relay

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// TestHubServerClaim: a match server whose relay connection dropped
// claims its rooms back on a new connection with their codes and keys:
// a wrong key is bad_key, a room another connection still holds
// room_busy, an ended room room_ended; a room the directory forgot (its
// old connection closed) is recorded again and hosted; the claimed room takes players, who hear of nothing.
func TestHubServerClaim(t *testing.T) {
	h := newTestHub(RoomConfig{})
	old := startServer(t, h, "10.0.0.1", 2, false)
	var rooms []roomproto.Msg
	for range 2 {
		sendMsg(h, old, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
		m := next(t, old)
		if m.Type != roomproto.MsgHosted {
			t.Fatalf("host: %+v", m)
		}
		rooms = append(rooms, m)
	}
	srv := startServer(t, h, "10.0.0.1", 2, false)
	claim := func(r roomproto.Msg, key string, now time.Time) {
		sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgClaim, V: 1, Code: r.Code, Key: key}, now)
	}
	claim(rooms[0], rooms[0].Key, t0)
	wantErr(t, srv, roomproto.ErrCodeRoomBusy, false) // the old connection holds it
	claim(rooms[0], rooms[1].Key, t0)
	wantErr(t, srv, roomproto.ErrCodeBadKey, false)
	sendMsg(h, old, roomproto.Msg{Type: roomproto.MsgEnd, Code: rooms[1].Code, Key: rooms[1].Key}, t0)
	next(t, old) // ended
	h.disconnect(old, t0)
	if _, n := h.counts(); n != 0 {
		t.Fatalf("%d rooms after the old connection closed", n)
	}
	claim(rooms[1], rooms[1].Key, t0)
	wantErr(t, srv, roomproto.ErrCodeRoomEnded, false)
	claim(rooms[0], rooms[0].Key, t0)
	if m := next(t, srv); m.Type != roomproto.MsgHosted || m.Claim != roomproto.ClaimHost || m.Code != rooms[0].Code || m.Key != rooms[0].Key {
		t.Fatalf("claim back: %+v", m)
	}
	claim(rooms[0], rooms[0].Key, t0) // again: the same answer
	if m := next(t, srv); m.Type != roomproto.MsgHosted || m.Code != rooms[0].Code {
		t.Fatalf("second claim back: %+v", m)
	}
	p := mustConnect(t, h, "10.1.0.1")
	sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: rooms[0].Code}, t0)
	if m := next(t, p); m.Type != roomproto.MsgJoined {
		t.Fatalf("join of the room claimed back: %+v", m)
	}
	if m := next(t, srv); m.Type != roomproto.MsgPlayer || m.Code != rooms[0].Code {
		t.Fatalf("server got %+v, want the player", m)
	}
	if st := (&RoomServer{hub: h}).MatchServers(); st.Servers != 1 {
		t.Errorf("match servers %+v", st)
	}
	if r := h.rooms[rooms[0].Code]; r == nil || r.host != srv || len(srv.srv.rooms) != 1 {
		t.Fatalf("the room claimed back: %+v", r)
	}
}
