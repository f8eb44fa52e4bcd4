package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/relay/turn"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// These tests run the relay over real WebSockets and real pion peers on
// 127.0.0.1 (ports chosen by the kernel).

type testRelay struct {
	url  string
	srv  *RoomServer
	turn *turn.Server
}

// startTestRelay serves a relay (with TURN) on 127.0.0.1; it stops at the
// end of the test.
func startTestRelay(t testing.TB, cfg RoomConfig) *testRelay {
	t.Helper()
	testutil.SkipSockets(t)
	turnSrv, err := turn.Start(turn.Config{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.TURN = turnSrv
	srv := NewRoomServer(cfg)
	mux := http.NewServeMux()
	mux.Handle(roomproto.Path, srv)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
		turnSrv.Close()
	})
	return &testRelay{url: "ws" + strings.TrimPrefix(hs.URL, "http") + roomproto.Path, srv: srv, turn: turnSrv}
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// playRoom hosts a room, joins 3 players by its code and exchanges
// datagrams both ways over the data channels.
func playRoom(t *testing.T, rtc webrtc.Config) []*roomclient.RoomPlayer {
	r := startTestRelay(t, RoomConfig{})
	ctx := testCtx(t)
	opened := make(chan transport.Addr, 3)
	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: r.url, WebRTC: rtc,
		OnPeerOpen: func(a transport.Addr) { opened <- a }})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	var players []*roomclient.RoomPlayer
	for range 3 {
		p, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r.url, Code: strings.ToLower(host.Code()), WebRTC: rtc})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		players = append(players, p)
	}
	buf := make([]byte, transport.MaxDatagram)
	for round := range 5 {
		for i, p := range players {
			msg := fmt.Sprintf("in %d from %d", round, i)
			if err := p.Conn().Send(p.Conn().RemoteAddr(), []byte(msg)); err != nil {
				t.Fatal(err)
			}
		}
		got := map[transport.Addr]string{}
		for range players {
			n, from := testutil.Recv(t, host.Conn(), buf)
			got[from] = string(buf[:n])
		}
		for i, p := range players {
			if want := fmt.Sprintf("in %d from %d", round, i); got[webrtc.PeerAddr(p.ID())] != want {
				t.Fatalf("host got %q from %s, want %q", got[webrtc.PeerAddr(p.ID())], p.ID(), want)
			}
			if err := host.Conn().Send(webrtc.PeerAddr(p.ID()), []byte(fmt.Sprintf("out %d to %d", round, i))); err != nil {
				t.Fatal(err)
			}
		}
		for i, p := range players {
			n, from := testutil.Recv(t, p.Conn(), buf)
			if want := fmt.Sprintf("out %d to %d", round, i); from != p.Conn().RemoteAddr() || string(buf[:n]) != want {
				t.Fatalf("player %d got %q from %s", i, buf[:n], from)
			}
		}
	}
	for range players {
		select {
		case a := <-opened:
			if !strings.HasPrefix(string(a), "webrtc:p") {
				t.Fatalf("OnPeerOpen(%q)", a)
			}
		default:
			t.Fatal("OnPeerOpen not called for every player")
		}
	}
	if rtc.RelayOnly {
		for _, p := range players {
			if l, rm := p.Conn().PathTypes(); l != "relay" || rm != "relay" {
				t.Fatalf("relay-only path is %s-%s", l, rm)
			}
		}
		if r.turn.Allocations() < 4 {
			t.Fatalf("TURN has %d allocations, want at least 4", r.turn.Allocations())
		}
	} else {
		for _, p := range players {
			if l, rm := p.Conn().PathTypes(); l == "relay" || rm == "relay" || l == "" {
				t.Fatalf("direct path is %s-%s", l, rm)
			}
		}
	}
	// The host ending the room: players are told.
	host.End()
	for _, p := range players {
		select {
		case <-time.After(5 * time.Second):
			t.Fatal("player not told the room ended")
		case <-waitErr(p):
		}
		if !errors.Is(p.Err(), roomproto.ErrRoomEnded) {
			t.Fatalf("player: %v", p.Err())
		}
	}
	_, err = roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r.url, Code: host.Code(), WebRTC: rtc})
	if !errors.Is(err, roomproto.ErrRoomEnded) {
		t.Fatalf("join after end: %v", err)
	}
	return players
}

// waitErr is closed once p has an error to report.
func waitErr(p *roomclient.RoomPlayer) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		for p.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return ch
}

func TestRoomDirect(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	playRoom(t, webrtc.Config{})
}

func TestRoomThroughTURN(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	playRoom(t, webrtc.Config{RelayOnly: true})
}

// dialRaw opens a bare WebSocket to the relay.
func dialRaw(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	testutil.SkipSockets(t)
	ws, _, err := websocket.Dial(testCtx(t), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

// rawError reads the next message, which must be an error with code; with
// closed, the relay must then close the connection with status.
func rawError(t *testing.T, ws *websocket.Conn, code string, status websocket.StatusCode) {
	t.Helper()
	ctx := testCtx(t)
	_, b, err := ws.Read(ctx)
	if err != nil {
		t.Fatalf("want error %s, read: %v", code, err)
	}
	m, _ := decodeReply(b)
	if m.Type != roomproto.MsgError || m.Error != code {
		t.Fatalf("got %s, want error %s", b, code)
	}
	if status == 0 {
		return
	}
	_, _, err = ws.Read(ctx)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != status || !strings.Contains(ce.Reason, code) {
		t.Fatalf("want close %v with reason %q, got %v", status, code, err)
	}
}

func decodeReply(b []byte) (roomproto.Msg, error) {
	var m roomproto.Msg
	err := jsonUnmarshal(b, &m)
	return m, err
}

func writeRaw(t *testing.T, ws *websocket.Conn, s string) {
	t.Helper()
	if err := ws.Write(testCtx(t), websocket.MessageText, []byte(s)); err != nil {
		t.Fatal(err)
	}
}

func TestRoomErrorsOverWebSocket(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	r := startTestRelay(t, RoomConfig{MaxPlayers: 1, MaxMessageBytes: 4096})
	ctx := testCtx(t)
	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: r.url})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()

	// Wrong code.
	if _, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r.url, Code: "ZZZZZZ"}); !errors.Is(err, roomproto.ErrNoRoom) {
		t.Fatalf("wrong code: %v", err)
	}
	// Full room: the one seat taken by a raw player.
	p1 := dialRaw(t, r.url)
	writeRaw(t, p1, `{"type":"join","v":1,"code":"`+host.Code()+`"}`)
	if _, b, err := p1.Read(ctx); err != nil || !strings.Contains(string(b), `"joined"`) {
		t.Fatalf("join: %s %v", b, err)
	}
	// Its data channel open (joiners still waiting for theirs take no seat).
	writeRaw(t, p1, `{"type":"connected"}`)
	testutil.WaitUntil(ctx, t, "the raw player connected", func() bool { return r.srv.RoomStats().Pending == 0 })
	if _, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r.url, Code: host.Code()}); !errors.Is(err, roomproto.ErrRoomFull) {
		t.Fatalf("full room: %v", err)
	}
	// Bad key.
	ws := dialRaw(t, r.url)
	writeRaw(t, ws, `{"type":"end","code":"`+host.Code()+`","key":"0123456789abcdef0123456789abcdef"}`)
	rawError(t, ws, roomproto.ErrCodeBadKey, 0)
	// Taken code.
	if _, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: r.url, Code: host.Code()}); !errors.Is(err, roomproto.ErrCodeTaken) {
		t.Fatalf("taken code: %v", err)
	}
	// Ended room.
	writeRaw(t, ws, `{"type":"end","code":"`+host.Code()+`","key":"`+host.Key()+`"}`)
	if _, b, err := ws.Read(ctx); err != nil || !strings.Contains(string(b), `"ended"`) {
		t.Fatalf("end: %s %v", b, err)
	}
	if _, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r.url, Code: host.Code()}); !errors.Is(err, roomproto.ErrRoomEnded) {
		t.Fatalf("ended room: %v", err)
	}
	// Oversized: that connection closes, others carry on.
	big := dialRaw(t, r.url)
	writeRaw(t, big, `{"type":"join","v":1,"code":"`+strings.Repeat("A", 5000)+`"}`)
	rawError(t, big, roomproto.ErrCodeTooLarge, websocket.StatusMessageTooBig)
	// Malformed.
	bad := dialRaw(t, r.url)
	writeRaw(t, bad, `{"type":"join",`)
	rawError(t, bad, roomproto.ErrCodeBadMessage, websocket.StatusPolicyViolation)
	bin := dialRaw(t, r.url)
	if err := bin.Write(ctx, websocket.MessageBinary, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	rawError(t, bin, roomproto.ErrCodeBadMessage, websocket.StatusPolicyViolation)
	// The bystander is unaffected.
	writeRaw(t, ws, `{"type":"join","v":1,"code":"ZZZZZZ"}`)
	rawError(t, ws, roomproto.ErrCodeNoRoom, 0)
}

func TestRoomLimitsOverWebSocket(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	// The clock stands still, so the bucket never refills however slowly
	// the machine runs the round trips below.
	frozen := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	r := startTestRelay(t, RoomConfig{Clock: frozen, ConnsPerAddr: 3, MsgRate: 1, MsgBurst: 5})
	var conns []*websocket.Conn
	for range 3 {
		conns = append(conns, dialRaw(t, r.url))
	}
	waitConns(t, r.srv, 3)
	// The fourth connection from 127.0.0.1 is refused with a reason.
	fourth := dialRaw(t, r.url)
	rawError(t, fourth, roomproto.ErrCodeTooManyConns, websocket.StatusTryAgainLater)
	// Rate: the burst passes, the next message closes the connection.
	ws := conns[0]
	for range 5 {
		writeRaw(t, ws, `{"type":"join","v":1,"code":"ZZZZZZ"}`)
		rawError(t, ws, roomproto.ErrCodeNoRoom, 0)
	}
	writeRaw(t, ws, `{"type":"join","v":1,"code":"ZZZZZZ"}`)
	rawError(t, ws, roomproto.ErrCodeRateLimited, websocket.StatusPolicyViolation)
	// The address's slot is free again once the server has let go.
	waitConns(t, r.srv, 2)
	again := dialRaw(t, r.url)
	writeRaw(t, again, `{"type":"join","v":1,"code":"ZZZZZZ"}`)
	rawError(t, again, roomproto.ErrCodeNoRoom, 0)
}

// TestRoomHostGone: a host that stops answering pings is gone after
// HostTimeout (here shortened), and its players are told. Timing in
// made-up time is covered by TestHubHostPingTimeout; this checks the
// wiring with a short real timer.
func TestRoomHostGone(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	r := startTestRelay(t, RoomConfig{PingInterval: 20 * time.Millisecond, HostTimeout: 100 * time.Millisecond, TickInterval: 10 * time.Millisecond})
	ctx := testCtx(t)
	ws := dialRaw(t, r.url) // a host that never answers pings
	writeRaw(t, ws, `{"type":"host","v":1,"code":"HSTG22"}`)
	if _, b, err := ws.Read(ctx); err != nil || !strings.Contains(string(b), `"hosted"`) {
		t.Fatalf("host: %s %v", b, err)
	}
	p := dialRaw(t, r.url)
	writeRaw(t, p, `{"type":"join","v":1,"code":"HSTG22"}`)
	if _, b, err := p.Read(ctx); err != nil || !strings.Contains(string(b), `"joined"`) {
		t.Fatalf("join: %s %v", b, err)
	}
	for {
		_, b, err := p.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"ended"`) {
			if !strings.Contains(string(b), "host gone") {
				t.Fatalf("ended: %s", b)
			}
			break
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// waitConns waits until the relay counts n connections (a WebSocket
// handshake completes before the relay's handler counts it).
func waitConns(t *testing.T, srv *RoomServer, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if got, _ := srv.Stats(); got == n {
			return
		}
		if time.Now().After(deadline) {
			got, _ := srv.Stats()
			t.Fatalf("relay counts %d connections, want %d", got, n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
