package relay

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// Hub tests run the relay's core in made-up time: no sockets, no sleeps.

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

type seededReader struct{ r *rand.ChaCha8 }

func (s seededReader) Read(p []byte) (int, error) { return s.r.Read(p) }

func newTestHub(cfg RoomConfig) *roomHub {
	if cfg.Rand == nil {
		cfg.Rand = seededReader{rand.NewChaCha8([32]byte{7})}
	}
	cfg.TickInterval = -1
	return newRoomHub(cfg.WithDefaults())
}

func mustConnect(t *testing.T, h *roomHub, addr string) *roomConn {
	t.Helper()
	c, err := h.connect(addr, t0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sendMsg(h *roomHub, c *roomConn, m roomproto.Msg, now time.Time) {
	h.handle(c, m.Encode(), now)
}

// next returns c's next queued message, failing if there is none.
func next(t *testing.T, c *roomConn) roomproto.Msg {
	t.Helper()
	select {
	case b := <-c.out:
		var m roomproto.Msg
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	default:
		t.Fatalf("conn %d: no message", c.id)
		return roomproto.Msg{}
	}
}

func noMsg(t *testing.T, c *roomConn) {
	t.Helper()
	select {
	case b := <-c.out:
		t.Fatalf("conn %d: unexpected %s", c.id, b)
	default:
	}
}

func wantErr(t *testing.T, c *roomConn, code string, fatal bool) {
	t.Helper()
	m := next(t, c)
	if m.Type != roomproto.MsgError || m.Error != code {
		t.Fatalf("got %+v, want error %s", m, code)
	}
	if c.killed != fatal {
		t.Fatalf("error %s: connection killed=%v, want %v", code, c.killed, fatal)
	}
}

func hostRoom(t *testing.T, h *roomHub, code string) (*roomConn, roomproto.Msg) {
	t.Helper()
	c := mustConnect(t, h, "10.0.0.1")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgHost, V: 1, Code: code}, t0)
	m := next(t, c)
	if m.Type != roomproto.MsgHosted || !roomcode.ValidLen(m.Code) || len(m.Key) != 32 {
		t.Fatalf("hosted: %+v", m)
	}
	return c, m
}

func TestHubHostJoinSignal(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted := hostRoom(t, h, "")
	p := mustConnect(t, h, "10.0.0.2")
	sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	joined := next(t, p)
	if joined.Type != roomproto.MsgJoined || joined.ID == "" {
		t.Fatalf("joined: %+v", joined)
	}
	if m := next(t, host); m.Type != roomproto.MsgPlayer || m.ID != joined.ID {
		t.Fatalf("host told %+v", m)
	}
	offer := &webrtc.Signal{Kind: webrtc.SignalOffer, SDP: "v=0"}
	sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgSignal, Signal: offer}, t0)
	if m := next(t, host); m.Type != roomproto.MsgSignal || m.From != joined.ID || *m.Signal != *offer {
		t.Fatalf("host got %+v", m)
	}
	answer := &webrtc.Signal{Kind: webrtc.SignalAnswer, SDP: "v=0 answer"}
	sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgSignal, To: joined.ID, Signal: answer}, t0)
	if m := next(t, p); m.Type != roomproto.MsgSignal || *m.Signal != *answer {
		t.Fatalf("player got %+v", m)
	}
	// To a player who is not there: a soft error.
	sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgSignal, To: "p99", Signal: answer}, t0)
	wantErr(t, host, roomproto.ErrCodeNoPlayer, false)
	// A player leaving is reported to the host.
	h.disconnect(p, t0)
	if m := next(t, host); m.Type != roomproto.MsgLeft || m.ID != joined.ID {
		t.Fatalf("host got %+v", m)
	}
}

func TestHubProposedCode(t *testing.T) {
	h := newTestHub(RoomConfig{})
	hostRoom(t, h, "ABC234")
	c := mustConnect(t, h, "10.0.0.3")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgHost, V: 1, Code: "ABC234"}, t0)
	wantErr(t, c, roomproto.ErrCodeCodeTaken, false)
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgHost, V: 1, Code: "ABC10O"}, t0)
	wantErr(t, c, roomproto.ErrCodeBadCode, false)
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgHost, V: 1, Code: "XYZ789"}, t0)
	if m := next(t, c); m.Type != roomproto.MsgHosted || m.Code != "XYZ789" {
		t.Fatalf("got %+v", m)
	}
}

func TestHubErrors(t *testing.T) {
	h := newTestHub(RoomConfig{MaxPlayers: 2})
	host, hosted := hostRoom(t, h, "")
	join := func(code string) *roomConn {
		c := mustConnect(t, h, "10.0.1.1")
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: code}, t0)
		return c
	}
	wantErr(t, join("ZZZZZZ"), roomproto.ErrCodeNoRoom, false)
	wantErr(t, join("lower!"), roomproto.ErrCodeNoRoom, false)
	for range 2 {
		c := join(hosted.Code)
		if m := next(t, c); m.Type != roomproto.MsgJoined {
			t.Fatalf("got %+v", m)
		}
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgConnected}, t0)
	}
	wantErr(t, join(hosted.Code), roomproto.ErrCodeRoomFull, false)

	other := mustConnect(t, h, "10.0.2.2")
	sendMsg(h, other, roomproto.Msg{Type: roomproto.MsgEnd, Code: hosted.Code, Key: "00000000000000000000000000000000"}, t0)
	wantErr(t, other, roomproto.ErrCodeBadKey, false)
	sendMsg(h, other, roomproto.Msg{Type: roomproto.MsgEnd, Code: "ZZZZZZ", Key: hosted.Key}, t0)
	wantErr(t, other, roomproto.ErrCodeNoRoom, false)

	// The key ends the room from any connection; everyone is told.
	for {
		select {
		case <-host.out:
			continue
		default:
		}
		break
	}
	sendMsg(h, other, roomproto.Msg{Type: roomproto.MsgEnd, Code: hosted.Code, Key: hosted.Key}, t0)
	if m := next(t, other); m.Type != roomproto.MsgEnded {
		t.Fatalf("got %+v", m)
	}
	if m := next(t, host); m.Type != roomproto.MsgEnded || m.Reason != "ended" {
		t.Fatalf("host got %+v", m)
	}
	sendMsg(h, other, roomproto.Msg{Type: roomproto.MsgEnd, Code: hosted.Code, Key: hosted.Key}, t0)
	wantErr(t, other, roomproto.ErrCodeRoomEnded, false)
	wantErr(t, join(hosted.Code), roomproto.ErrCodeRoomEnded, false)

	// Malformed, unknown and out-of-state messages close the connection.
	for _, raw := range []string{`{"type":`, `[]`, `{"type":"dance"}`, `{"type":"join","v":1}`,
		`{"type":"signal","signal":{"kind":"offer","sdp":"x"}}`, `{"type":"pong"}`, `{"type":"connected"}`,
		`{"type":"signal","signal":{"kind":"tea"}}`} {
		c := mustConnect(t, h, "10.0.3.3")
		h.handle(c, []byte(raw), t0)
		wantErr(t, c, roomproto.ErrCodeBadMessage, true)
		if c.status != websocket.StatusPolicyViolation || c.reason == "" {
			t.Fatalf("%s: closed with %v %q", raw, c.status, c.reason)
		}
	}
	c := mustConnect(t, h, "10.0.3.3")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 3, Code: hosted.Code}, t0)
	wantErr(t, c, roomproto.ErrCodeBadVersion, true)
	c = mustConnect(t, h, "10.0.3.3")
	h.tooLarge(c)
	wantErr(t, c, roomproto.ErrCodeTooLarge, true)
	if c.status != websocket.StatusMessageTooBig {
		t.Fatalf("too large: status %v", c.status)
	}
}

func TestHubEndedRoomRemembered(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted := hostRoom(t, h, "")
	// Only the host's explicit end marks the room ended (a host that
	// vanishes does not: TestHubVanishedHostDoesNotEnd).
	sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgEnd, Code: hosted.Code, Key: hosted.Key}, t0)
	if m := next(t, host); m.Type != roomproto.MsgEnded {
		t.Fatalf("host got %+v", m)
	}
	h.disconnect(host, t0)
	join := func(now time.Time) *roomConn {
		c := mustConnect(t, h, "10.0.1.1")
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, now)
		return c
	}
	wantErr(t, join(t0.Add(4*time.Minute+59*time.Second)), roomproto.ErrCodeRoomEnded, false)
	h.tick(t0.Add(5 * time.Minute))
	wantErr(t, join(t0.Add(5*time.Minute)), roomproto.ErrCodeNoRoom, false)
	// The code is free again.
	c := mustConnect(t, h, "10.0.1.1")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgHost, V: 1, Code: hosted.Code}, t0.Add(5*time.Minute))
	if m := next(t, c); m.Type != roomproto.MsgHosted {
		t.Fatalf("got %+v", m)
	}
}

func TestHubHostPingTimeout(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted := hostRoom(t, h, "")
	p := mustConnect(t, h, "10.0.0.2")
	sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	next(t, p)
	next(t, host)
	// A host that answers stays.
	now := t0
	for range 10 {
		now = now.Add(time.Second)
		h.tick(now)
		m := next(t, host)
		if m.Type != roomproto.MsgPing {
			t.Fatalf("got %+v", m)
		}
		sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgPong, N: m.N}, now.Add(100*time.Millisecond))
	}
	// One that stops answering is gone 3 s after its last answer (the
	// relay's timer running every 250 ms meanwhile: a longer gap would be
	// the relay's own stall, stall.go).
	last := now.Add(100 * time.Millisecond)
	for at := now.Add(250 * time.Millisecond); at.Before(last.Add(2900 * time.Millisecond)); at = at.Add(250 * time.Millisecond) {
		h.tick(at)
	}
	h.tick(last.Add(2900 * time.Millisecond))
	if host.killed {
		t.Fatal("host gone before 3 s")
	}
	noMsg(t, p)
	h.tick(last.Add(3 * time.Second))
	if !host.killed {
		t.Fatal("host not gone after 3 s")
	}
	if m := next(t, p); m.Type != roomproto.MsgEnded || m.Reason != "host gone: no answer to ping" {
		t.Fatalf("player got %+v", m)
	}
	// A room without migration is forgotten, not remembered as ended:
	// only the host's End does that.
	c := mustConnect(t, h, "10.0.1.1")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, last.Add(3*time.Second))
	wantErr(t, c, roomproto.ErrCodeNoRoom, false)
}

func TestHubRateLimit(t *testing.T) {
	h := newTestHub(RoomConfig{FailedJoinBurst: 1 << 20, FailBudgetRate: -1}) // the message rate, not failed joins
	c := mustConnect(t, h, "10.0.0.9")
	// The burst: 200 messages at one instant pass.
	for range 200 {
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: "ZZZZZZ"}, t0)
		wantErr(t, c, roomproto.ErrCodeNoRoom, false)
	}
	// Then 50 per second: one every 20 ms passes for a long while.
	now := t0
	for range 500 {
		now = now.Add(20 * time.Millisecond)
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: "ZZZZZZ"}, now)
		wantErr(t, c, roomproto.ErrCodeNoRoom, false)
	}
	// One more at the same instant is over the limit: the connection closes.
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: "ZZZZZZ"}, now)
	wantErr(t, c, roomproto.ErrCodeRateLimited, true)
}

func TestHubConnLimits(t *testing.T) {
	h := newTestHub(RoomConfig{ConnsPerAddr: 64, MaxConns: 100})
	var conns []*roomConn
	for range 64 {
		conns = append(conns, mustConnect(t, h, "10.0.0.1"))
	}
	if _, err := h.connect("10.0.0.1", t0); !errors.Is(err, roomproto.ErrTooManyConns) {
		t.Fatalf("65th connection from one address: %v", err)
	}
	h.disconnect(conns[0], t0)
	conns[0] = mustConnect(t, h, "10.0.0.1")
	for range 36 {
		mustConnect(t, h, "10.0.0.2")
	}
	if _, err := h.connect("10.0.0.3", t0); !errors.Is(err, roomproto.ErrTooManyConns) {
		t.Fatalf("101st connection: %v", err)
	}
}

func TestHubJoiningLimit(t *testing.T) {
	h := newTestHub(RoomConfig{})
	_, hosted := hostRoom(t, h, "")
	var players []*roomConn
	for i := range 32 {
		c := mustConnect(t, h, fmt.Sprintf("10.0.5.%d", i))
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
		if m := next(t, c); m.Type != roomproto.MsgJoined {
			t.Fatalf("got %+v", m)
		}
		players = append(players, c)
	}
	c := mustConnect(t, h, "10.0.0.6")
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	wantErr(t, c, roomproto.ErrCodeRoomBusy, false)
	// A player whose data channel opened no longer counts as joining.
	sendMsg(h, players[0], roomproto.Msg{Type: roomproto.MsgConnected}, t0)
	sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	if m := next(t, c); m.Type != roomproto.MsgJoined {
		t.Fatalf("got %+v", m)
	}
}

func TestHubIdleTimeout(t *testing.T) {
	h := newTestHub(RoomConfig{})
	idle := mustConnect(t, h, "10.0.0.1")
	busy := mustConnect(t, h, "10.0.0.1")
	sendMsg(h, busy, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: "ZZZZZZ"}, t0.Add(20*time.Second))
	wantErr(t, busy, roomproto.ErrCodeNoRoom, false)
	h.tick(t0.Add(29 * time.Second))
	if idle.killed {
		t.Fatal("idle connection closed before 30 s")
	}
	h.tick(t0.Add(30 * time.Second))
	if !idle.killed || busy.killed {
		t.Fatalf("after 30 s: idle killed=%v, busy=%v", idle.killed, busy.killed)
	}
	wantErr(t, idle, roomproto.ErrCodeIdle, true)
}

// TestHubJoinStorm: 32 players joining at once need an answer and several
// candidates each from the host, more than the host's rate limit burst;
// the host is not cut off for it, but its signals beyond a joining
// player's allowance count again.
func TestHubJoinStorm(t *testing.T) {
	h := newTestHub(RoomConfig{})
	host, hosted := hostRoom(t, h, "")
	var ids []string
	for i := range 32 {
		c := mustConnect(t, h, fmt.Sprintf("10.0.5.%d", i))
		sendMsg(h, c, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
		ids = append(ids, next(t, c).ID)
		next(t, host)
	}
	cand := &webrtc.Signal{Kind: webrtc.SignalCandidate, Candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host"}
	for _, id := range ids {
		for range 8 { // 256 signals at one instant, over the burst of 200
			sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgSignal, To: id, Signal: cand}, t0)
		}
	}
	if host.killed {
		t.Fatal("host rate-limited by a join storm")
	}
	// Past the allowance, a player's signals use the bucket (200 burst).
	for i := 0; !host.killed; i++ {
		if i > 300 {
			t.Fatal("host never rate-limited")
		}
		sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgSignal, To: ids[0], Signal: cand}, t0)
	}
}

// TestHubLongCodes: with RoomConfig.CodeLength the relay draws longer
// codes; a room of such a code is joined and ended like any; hosts may
// propose codes of 6 to 12 characters, not more.
func TestHubLongCodes(t *testing.T) {
	h := newTestHub(RoomConfig{CodeLength: 10})
	host := mustConnect(t, h, "10.0.0.1")
	sendMsg(h, host, roomproto.Msg{Type: roomproto.MsgHost, V: 1}, t0)
	hosted := next(t, host)
	if hosted.Type != roomproto.MsgHosted || len(hosted.Code) != 10 || !roomcode.ValidLen(hosted.Code) || roomcode.Valid(hosted.Code) {
		t.Fatalf("hosted: %+v", hosted)
	}
	p := mustConnect(t, h, "10.0.0.2")
	sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgJoin, V: 1, Code: hosted.Code}, t0)
	if m := next(t, p); m.Type != roomproto.MsgJoined {
		t.Fatalf("joined: %+v", m)
	}
	next(t, host) // the player
	sendMsg(h, p, roomproto.Msg{Type: roomproto.MsgEnd, Code: hosted.Code, Key: hosted.Key}, t0)
	if m := next(t, p); m.Type != roomproto.MsgEnded {
		t.Fatalf("end: %+v", m)
	}
	h2 := mustConnect(t, h, "10.0.0.3")
	sendMsg(h, h2, roomproto.Msg{Type: roomproto.MsgHost, V: 1, Code: "ABCDEFGH"}, t0)
	if m := next(t, h2); m.Type != roomproto.MsgHosted || m.Code != "ABCDEFGH" {
		t.Fatalf("proposed 8: %+v", m)
	}
	if _, err := roomproto.Decode([]byte(`{"type":"host","v":1,"code":"ABCDEFGHJKLMN"}`)); !errors.Is(err, roomproto.ErrBadCode) {
		t.Fatalf("13 characters: %v", err)
	}
	for n, want := range map[int]int{0: roomcode.DefaultLen, 3: 6, 6: 6, 12: 12, 40: 12} {
		if got := (RoomConfig{CodeLength: n}).WithDefaults().CodeLength; got != want {
			t.Errorf("CodeLength %d -> %d, want %d", n, got, want)
		}
	}
}
