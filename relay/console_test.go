package relay

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// TestConsoleActions: Rooms lists a room and its player; CloseRoom
// refuses a new join; RemovePlayer tells the player and the host;
// EndRoom tells both and the code is remembered ended; Drain refuses new
// rooms.
func TestConsoleActions(t *testing.T) {
	h := newTestHub(RoomConfig{})
	s := &RoomServer{cfg: h.cfg, hub: h}
	host, hosted := hostRoom(t, h, "")
	p := mustConnect(t, h, "10.0.0.2")
	sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	joined := next(t, p)
	next(t, host) // player
	rooms := s.Rooms()
	if len(rooms) != 1 || rooms[0].Code != hosted.Code || rooms[0].Host != "10.0.0.1" || len(rooms[0].Members) != 1 ||
		rooms[0].Members[0].ID != joined.ID || rooms[0].Members[0].Addr != "10.0.0.2" || rooms[0].Joining != 1 {
		t.Fatalf("Rooms() = %+v", rooms)
	}
	if err := s.CloseRoom(hosted.Code); err != nil {
		t.Fatal(err)
	}
	late := mustConnect(t, h, "10.0.0.3")
	sendMsg(h, late, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	wantErr(t, late, roomproto.ErrCodeRoomFull, false)
	if err := s.RemovePlayer(hosted.Code, joined.ID, "cheating"); err != nil {
		t.Fatal(err)
	}
	if m := next(t, p); m.Type != roomproto.MsgEnded || m.Reason != "cheating" || !p.killed {
		t.Fatalf("removed player got %+v (killed %v)", m, p.killed)
	}
	if m := next(t, host); m.Type != roomproto.MsgLeft || m.ID != joined.ID {
		t.Fatalf("host got %+v", m)
	}
	if err := s.RemovePlayer(hosted.Code, joined.ID, ""); !errors.Is(err, roomproto.ErrNoPlayer) {
		t.Errorf("second remove: %v", err)
	}
	if err := s.EndRoom(hosted.Code, "server update"); err != nil {
		t.Fatal(err)
	}
	if m := next(t, host); m.Type != roomproto.MsgEnded || m.Reason != roomproto.EndedByOperator+": server update" {
		t.Fatalf("host got %+v", m)
	}
	if err := s.EndRoom(hosted.Code, ""); !errors.Is(err, roomproto.ErrNoRoom) {
		t.Errorf("second end: %v", err)
	}
	again := mustConnect(t, h, "10.0.0.4")
	sendMsg(h, again, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	wantErr(t, again, roomproto.ErrCodeRoomEnded, false)
	s.Drain()
	h2 := mustConnect(t, h, "10.0.0.5")
	sendMsg(h, h2, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
	if m := next(t, h2); m.Type != roomproto.MsgError || !s.Draining() {
		t.Fatalf("host while draining got %+v", m)
	}
}

// BenchmarkRooms100 is what one poll of an open console costs a relay of
// 100 rooms of 4 players (Rooms under the hub's lock); the console polls
// 4 times a second while watched and never otherwise.
//
//	go test -run '^$' -bench Rooms100 ./relay
func BenchmarkRooms100(b *testing.B) {
	h := newTestHub(RoomConfig{ConnsPerAddr: 1 << 20, MaxConns: 1 << 20})
	s := &RoomServer{cfg: h.cfg, hub: h}
	for range 100 {
		c, _ := h.connect("10.0.0.1", t0)
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
		var hosted roomproto.Msg
		json.Unmarshal(<-c.out, &hosted)
		for j := range 4 {
			p, _ := h.connect("10.1.0."+strconv.Itoa(j+1), t0)
			sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
		}
	}
	if n := len(s.Rooms()); n != 100 {
		b.Fatalf("%d rooms", n)
	}
	for b.Loop() {
		s.Rooms()
	}
}
