package relay

import (
	"testing"
	"time"
)

// TestHubServerClaim: a match server whose relay connection dropped
// claims its rooms back on a new connection with their codes and keys:
// a wrong key is bad_key, a room another connection still holds
// room_busy, an ended room room_ended; a room the directory forgot (its
// old connection closed) is recorded again and hosted; the claimed room takes players, who hear of nothing.
func TestHubServerClaim(t *testing.T) {
	h := newTestHub(RoomConfig{})
	old := startServer(t, h, "10.0.0.1", 2, false)
	var rooms []roomMsg
	for range 2 {
		sendMsg(h, old, roomMsg{Type: RoomMsgHost, V: 1}, t0)
		m := next(t, old)
		if m.Type != RoomMsgHosted {
			t.Fatalf("host: %+v", m)
		}
		rooms = append(rooms, m)
	}
	srv := startServer(t, h, "10.0.0.1", 2, false)
	claim := func(r roomMsg, key string, now time.Time) {
		sendMsg(h, srv, roomMsg{Type: RoomMsgClaim, V: 1, Code: r.Code, Key: key}, now)
	}
	claim(rooms[0], rooms[0].Key, t0)
	wantErr(t, srv, RoomErrRoomBusy, false) // the old connection holds it
	claim(rooms[0], rooms[1].Key, t0)
	wantErr(t, srv, RoomErrBadKey, false)
	sendMsg(h, old, roomMsg{Type: RoomMsgEnd, Code: rooms[1].Code, Key: rooms[1].Key}, t0)
	next(t, old) // ended
	h.disconnect(old, t0)
	if _, n := h.counts(); n != 0 {
		t.Fatalf("%d rooms after the old connection closed", n)
	}
	claim(rooms[1], rooms[1].Key, t0)
	wantErr(t, srv, RoomErrRoomEnded, false)
	claim(rooms[0], rooms[0].Key, t0)
	if m := next(t, srv); m.Type != RoomMsgHosted || m.Claim != RoomClaimHost || m.Code != rooms[0].Code || m.Key != rooms[0].Key {
		t.Fatalf("claim back: %+v", m)
	}
	claim(rooms[0], rooms[0].Key, t0) // again: the same answer
	if m := next(t, srv); m.Type != RoomMsgHosted || m.Code != rooms[0].Code {
		t.Fatalf("second claim back: %+v", m)
	}
	p := mustConnect(t, h, "10.1.0.1")
	sendMsg(h, p, roomMsg{Type: RoomMsgJoin, V: 1, Code: rooms[0].Code}, t0)
	if m := next(t, p); m.Type != RoomMsgJoined {
		t.Fatalf("join of the room claimed back: %+v", m)
	}
	if m := next(t, srv); m.Type != RoomMsgPlayer || m.Code != rooms[0].Code {
		t.Fatalf("server got %+v, want the player", m)
	}
	if st := (&RoomServer{hub: h}).MatchServers(); st.Servers != 1 {
		t.Errorf("match servers %+v", st)
	}
	if r := h.rooms[rooms[0].Code]; r == nil || r.host != srv || len(srv.srv.rooms) != 1 {
		t.Fatalf("the room claimed back: %+v", r)
	}
}
