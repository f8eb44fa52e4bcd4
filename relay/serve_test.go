package relay

import (
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// startServer registers a match server with slots, answering "serving".
func startServer(t *testing.T, h *roomHub, addr string, slots int, onDemand bool) *roomConn {
	t.Helper()
	c := mustConnect(t, h, addr)
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgServe, V: 2, Slots: slots, OnDemand: onDemand, MaxPlayers: 4}, t0)
	if m := next(t, c); m.Type != roomproto.MsgServing || m.Slots != slots {
		t.Fatalf("serve: %+v", m)
	}
	return c
}

// openRoom asks for a room on demand from a new lobby connection and
// returns the lobby and the open the server got (not yet answered).
func openRoom(t *testing.T, h *roomHub, srv *roomConn, now time.Time) (*roomConn, roomproto.Msg) {
	t.Helper()
	lobby := mustConnect(t, h, "10.9.0.1")
	sendMsg(h, lobby, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, now)
	m := next(t, srv)
	if m.Type != roomproto.MsgOpen || !roomcode.ValidLen(m.Code) || len(m.Key) != 32 || m.MaxPlayers != 4 {
		t.Fatalf("server got %+v, want open", m)
	}
	noMsg(t, lobby)
	return lobby, m
}

// TestHubServeOnDemand: a match server with 2 slots takes two rooms a
// lobby asks for; the third is refused "full" with the count; players
// reach each room through the one connection, with the code on every
// message; the end of a match frees its slot and a new room opens.
func TestHubServeOnDemand(t *testing.T) {
	h := newTestHub(RoomConfig{})
	srv := startServer(t, h, "10.0.0.1", 2, true)
	var codes []string
	for range 2 {
		lobby, open := openRoom(t, h, srv, t0)
		sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgOpened, Code: open.Code}, t0)
		m := next(t, lobby)
		if m.Type != roomproto.MsgOpened || m.Code != open.Code {
			t.Fatalf("lobby got %+v, want opened %s", m, open.Code)
		}
		codes = append(codes, m.Code)
	}
	lobby := mustConnect(t, h, "10.9.0.2")
	sendMsg(h, lobby, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, t0)
	m := next(t, lobby)
	if m.Type != roomproto.MsgError || m.Error != roomproto.ErrCodeFull || !strings.Contains(m.Reason, "2 of 2 slots in use") {
		t.Fatalf("third open: %+v, want full with the slots", m)
	}
	noMsg(t, srv)

	// Players of both rooms: the server hears of each with its room's code.
	var players []*roomConn
	for i, code := range codes {
		p := mustConnect(t, h, "10.1.0.1")
		sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: code}, t0)
		if m := next(t, p); m.Type != roomproto.MsgJoined || m.ID != "p1" {
			t.Fatalf("room %d: %+v", i, m)
		}
		if m := next(t, srv); m.Type != roomproto.MsgPlayer || m.Code != code || m.ID != "p1" {
			t.Fatalf("room %d: server got %+v", i, m)
		}
		offer := webrtc.Signal{Kind: webrtc.SignalOffer, SDP: "v=0 " + code}
		sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgSignal, Signal: &offer}, t0)
		if m := next(t, srv); m.Type != roomproto.MsgSignal || m.Code != code || m.From != "p1" || m.Signal.SDP != offer.SDP {
			t.Fatalf("room %d: server got %+v", i, m)
		}
		players = append(players, p)
	}
	for i, code := range codes { // the answer goes to the player of the room named
		answer := webrtc.Signal{Kind: webrtc.SignalAnswer, SDP: "v=0 answer " + code}
		sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgSignal, Code: code, To: "p1", Signal: &answer}, t0)
		if m := next(t, players[i]); m.Type != roomproto.MsgSignal || m.Signal.SDP != answer.SDP {
			t.Fatalf("room %d: player got %+v", i, m)
		}
		noMsg(t, players[1-i])
	}
	answer := webrtc.Signal{Kind: webrtc.SignalAnswer, SDP: "v=0"}
	sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgSignal, Code: "ZZZZZZ", To: "p1", Signal: &answer}, t0)
	wantErr(t, srv, roomproto.ErrCodeNoPlayer, false)

	// The first room's match ends: its slot is free, a new room opens.
	sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgEnd, Code: codes[0], Key: h.rooms[codes[0]].key}, t0)
	if m := next(t, players[0]); m.Type != roomproto.MsgEnded {
		t.Fatalf("player of the ended room got %+v", m)
	}
	if m := next(t, srv); m.Type != roomproto.MsgEnded || m.Code != codes[0] {
		t.Fatalf("server got %+v, want ended %s", m, codes[0])
	}
	lobby, open := openRoom(t, h, srv, t0)
	sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgOpened, Code: open.Code}, t0)
	if m := next(t, lobby); m.Type != roomproto.MsgOpened || m.Code != open.Code || m.Code == codes[0] {
		t.Fatalf("after the end: %+v", m)
	}

	if st := (&RoomServer{hub: h}).MatchServers(); st != (MatchServerStats{Servers: 1, OnDemand: 1, Slots: 2, Used: 2, Opened: 3, Full: 1}) {
		t.Errorf("match server stats %+v", st)
	}

	// The server's connection closes: its rooms end for their players.
	h.disconnect(srv, t0)
	if m := next(t, players[1]); m.Type != roomproto.MsgEnded || m.Reason != "host left" {
		t.Fatalf("player after the server left: %+v", m)
	}
	if _, rooms := h.counts(); rooms != 0 {
		t.Fatalf("%d rooms left", rooms)
	}
	sendMsg(h, lobby, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, t0)
	if m := next(t, lobby); m.Error != roomproto.ErrCodeFull || !strings.Contains(m.Reason, "0 match server(s)") {
		t.Fatalf("open with no server: %+v", m)
	}
}

// TestHubServeRefusals: a server that refuses an open, or does not
// answer it, leaves the lobby "full" and the code free; an unused room
// ends; rooms hosted on the connection at start count against its
// slots; one ping per connection keeps all its rooms.
func TestHubServeRefusals(t *testing.T) {
	h := newTestHub(RoomConfig{})
	srv := startServer(t, h, "10.0.0.1", 3, true)
	for range 2 {
		sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
		if m := next(t, srv); m.Type != roomproto.MsgHosted || m.MaxPlayers != 4 {
			t.Fatalf("host on a server: %+v", m)
		}
	}
	lobby, open := openRoom(t, h, srv, t0)
	sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgOpened, Code: open.Code, Reason: "shutting down"}, t0)
	if m := next(t, lobby); m.Error != roomproto.ErrCodeFull || !strings.Contains(m.Reason, "shutting down") {
		t.Fatalf("refused open: %+v", m)
	}
	if m := next(t, srv); m.Type != roomproto.MsgEnded || m.Code != open.Code {
		t.Fatalf("server after its refusal: %+v", m)
	}
	if _, ok, _ := h.cfg.Directory.Lookup(open.Code, t0); ok {
		t.Fatalf("refused code %s still in the directory", open.Code)
	}

	// No answer: after OpenTimeout the lobby is told, the server too.
	lobby, open = openRoom(t, h, srv, t0)
	now := t0
	var got []roomproto.Msg
	for now.Sub(t0) < h.cfg.OpenTimeout {
		now = now.Add(250 * time.Millisecond)
		h.tick(now)
		got = append(got, pump(t, h, srv, now)...)
	}
	if m := next(t, lobby); m.Error != roomproto.ErrCodeFull || !strings.Contains(m.Reason, "no answer") {
		t.Fatalf("unanswered open: %+v", m)
	}
	if len(got) != 1 || got[0].Type != roomproto.MsgEnded || got[0].Code != open.Code {
		t.Fatalf("server after the timeout: %+v", got)
	}

	// A room opened and confirmed that nobody joins ends after
	// UnusedTimeout (the two hosted at start stay: pinged as one).
	lobby, open = openRoom(t, h, srv, now)
	sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgOpened, Code: open.Code}, now)
	next(t, lobby)
	opened := now
	for now.Sub(opened) < h.cfg.UnusedTimeout {
		now = now.Add(250 * time.Millisecond)
		h.tick(now)
		for _, m := range pump(t, h, srv, now) {
			if m.Type != roomproto.MsgEnded || m.Code != open.Code || !strings.Contains(m.Reason, "unused") {
				t.Fatalf("server got %+v", m)
			}
		}
	}
	if _, rooms := h.counts(); rooms != 2 || len(srv.srv.rooms) != 2 || srv.killed {
		t.Fatalf("rooms %d, server's %d, killed %v: want the 2 hosted at start", rooms, len(srv.srv.rooms), srv.killed)
	}
	if rec, ok, _ := h.cfg.Directory.Lookup(open.Code, now); !ok || !rec.Ended {
		t.Fatalf("unused room %s: %+v %v, want remembered as ended", open.Code, rec, ok)
	}

	// A host beyond the slots is refused, softly.
	sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, now)
	next(t, srv)
	sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, now)
	wantErr(t, srv, roomproto.ErrCodeFull, false)

	// Pings unanswered: every room of the server goes.
	p := mustConnect(t, h, "10.1.0.1")
	sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: h.order(srv)[0]}, now)
	next(t, p)
	for range 4 * 4 {
		now = now.Add(250 * time.Millisecond)
		h.tick(now)
	}
	if !srv.killed || len(srv.srv.rooms) != 0 {
		t.Fatalf("silent server: killed %v, %d rooms", srv.killed, len(srv.srv.rooms))
	}
	if m := next(t, p); m.Type != roomproto.MsgEnded || !strings.Contains(m.Reason, "no answer to ping") {
		t.Fatalf("player of a silent server: %+v", m)
	}
}

// pump answers match server c's pings and returns its other messages.
func pump(t *testing.T, h *roomHub, c *roomConn, now time.Time) []roomproto.Msg {
	t.Helper()
	var out []roomproto.Msg
	for len(c.out) > 0 {
		m := next(t, c)
		if m.Type == roomproto.MsgPing {
			sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgPong, N: m.N}, now)
			continue
		}
		out = append(out, m)
	}
	return out
}

// order returns the codes of match server c's rooms (any order).
func (h *roomHub) order(c *roomConn) []string {
	var codes []string
	for code := range c.srv.rooms {
		codes = append(codes, code)
	}
	return codes
}

// TestHubServeLimits: serve and open speak version 2 only; a server's
// hosts within its slots do not count against its message rate; what a
// host or a lobby may not do is refused.
func TestHubServeLimits(t *testing.T) {
	h := newTestHub(RoomConfig{})
	c := mustConnect(t, h, "10.0.0.1")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgServe, V: 1, Slots: 2}, t0)
	wantErr(t, c, roomproto.ErrCodeBadVersion, true)
	c = mustConnect(t, h, "10.0.0.1")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgServe, V: 2}, t0)
	wantErr(t, c, roomproto.ErrCodeBadMessage, true)
	c = mustConnect(t, h, "10.0.0.1")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgOpen, V: 1}, t0)
	wantErr(t, c, roomproto.ErrCodeBadVersion, true)

	host, _ := hostRoom(t, h, "")
	sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, t0)
	wantErr(t, host, roomproto.ErrCodeBadMessage, true)
	c = mustConnect(t, h, "10.0.0.1")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgOpened, Code: "ABC234"}, t0)
	wantErr(t, c, roomproto.ErrCodeBadMessage, true)

	n := 300 // more than the burst of 200
	srv := startServer(t, h, "10.0.0.2", n, false)
	for i := range n {
		sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
		if m := next(t, srv); m.Type != roomproto.MsgHosted {
			t.Fatalf("host %d: %+v", i, m)
		}
	}
	sendMsg(h, srv, roomproto.Msg{Type: roomproto.MsgHost, V: 1, Migrate: true}, t0)
	wantErr(t, srv, roomproto.ErrCodeBadMessage, true)

	// A server that is not on demand is not asked.
	lobby := mustConnect(t, h, "10.9.0.1")
	sendMsg(h, lobby, roomproto.Msg{Type: roomproto.MsgOpen, V: 2}, t0)
	wantErr(t, lobby, roomproto.ErrCodeFull, false)
}
