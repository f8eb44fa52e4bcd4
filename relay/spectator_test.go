package relay

import (
	"testing"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// TestHubSpectators: a join with the "spectator" flag counts against
// MaxSpectators (joining ones too), not the room's players: a room full of
// players takes spectators, spectators fill no player's place, and a
// spectator that leaves frees its own.
func TestHubSpectators(t *testing.T) {
	h := newTestHub(RoomConfig{MaxPlayers: 1, MaxSpectators: 2})
	_, hosted := hostRoom(t, h, "")
	join := func(spectator bool) *roomConn {
		c := mustConnect(t, h, "10.0.1.1")
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code, Spectator: spectator}, t0)
		return c
	}
	joined := func(c *roomConn) {
		t.Helper()
		if m := next(t, c); m.Type != roomproto.MsgJoined {
			t.Fatalf("got %+v, want joined", m)
		}
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgConnected}, t0)
		noMsg(t, c)
	}
	player := join(false)
	joined(player)
	wantErr(t, join(false), roomproto.ErrCodeRoomFull, false)
	s1 := join(true)
	joined(s1)
	s2 := join(true) // joining (no connected yet): it counts
	if m := next(t, s2); m.Type != roomproto.MsgJoined {
		t.Fatalf("got %+v", m)
	}
	wantErr(t, join(true), roomproto.ErrCodeRoomFull, false)
	wantErr(t, join(false), roomproto.ErrCodeRoomFull, false)
	sendMsg(h, s2, roomproto.Msg{Type: roomproto.MsgConnected}, t0)
	noMsg(t, s2)

	// The player leaves: a player may join though two spectators are in.
	h.disconnect(player, t0)
	joined(join(false))
	// A spectator leaves: another spectator may join.
	h.disconnect(s1, t0)
	joined(join(true))
	wantErr(t, join(true), roomproto.ErrCodeRoomFull, false)
}
