package relay

import (
	"testing"

	"github.com/rewindnet/rewind/relay/roomproto"
)

// TestHubServerToken: on a relay with a server token, a serve without
// the proof, or with a proof for another nonce or token, is refused
// unauthorized and closed; the server with the proof registers, and a
// lobby's open goes to it. Without a token, any serve registers.
func TestHubServerToken(t *testing.T) {
	token := []byte("a-server-token-of-some-length")
	h := newTestHub(RoomConfig{ServerToken: token})
	serve := func(addr, nonce, auth string) *roomConn {
		c := mustConnect(t, h, addr)
		c.nonce = nonce
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgServe, V: 2, Slots: 1024, OnDemand: true, Auth: auth}, t0)
		return c
	}
	for _, auth := range []string{"", roomproto.ServerProof(token, "other-nonce"), roomproto.ServerProof([]byte("wrong-token-wrong-token"), "n1")} {
		c := serve("10.6.6.6", "n1", auth)
		wantErr(t, c, roomproto.ErrCodeUnauthorized, true)
	}
	real := serve("10.0.0.1", "n2", roomproto.ServerProof(token, "n2"))
	if m := next(t, real); m.Type != roomproto.MsgServing {
		t.Fatalf("with the proof: %+v", m)
	}
	lobby := mustConnect(t, h, "10.9.0.1")
	sendMsg(h, lobby, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, t0)
	if m := next(t, real); m.Type != roomproto.MsgOpen {
		t.Fatalf("the authenticated server got %+v, want open", m)
	}

	open := newTestHub(RoomConfig{})
	c := mustConnect(t, open, "10.6.6.6")
	sendMsg(open, c, roomproto.Msg{Type: roomproto.MsgServe, V: 2, Slots: 4, OnDemand: true}, t0)
	if m := next(t, c); m.Type != roomproto.MsgServing {
		t.Fatalf("no token: %+v", m)
	}
}
