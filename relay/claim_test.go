package relay

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// TestClaimRoomOverSockets: over a real relay on 127.0.0.1, a host that
// asked for migration closes its relay connection; its player is told
// (HostLost) and claims the room: it hosts it under the same code and
// key; a second claimant is introduced to it and its data channel to the
// new host opens; a claim with another key is refused; once the new host
// ends the room, a claim is told it ended.
func TestClaimRoomOverSockets(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	r := startTestRelay(t, RoomConfig{})
	ctx := testCtx(t)
	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: r.url, Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r.url, Code: host.Code()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	code, key := host.Code(), host.Key()
	host.Close()
	select {
	case <-p.HostLost():
	case <-time.After(5 * time.Second):
		t.Fatal("player not told the host is lost")
	}
	if _, err := roomclient.ClaimRoom(ctx, roomclient.ClaimOptions{URL: r.url, Code: code, Key: "0123456789abcdef0123456789abcdef"}); !errors.Is(err, roomproto.ErrBadKey) {
		t.Fatalf("claim with another key: %v", err)
	}
	first, err := roomclient.ClaimRoom(ctx, roomclient.ClaimOptions{URL: r.url, Code: code, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if first.Outcome != roomproto.ClaimHost || first.Host.Code() != code || first.Host.Key() != key {
		t.Fatalf("first claim: %+v", first)
	}
	defer first.Host.Close()
	second, err := roomclient.ClaimRoom(ctx, roomclient.ClaimOptions{URL: r.url, Code: code, Key: key, Host: roomclient.HostOptions{WebRTC: webrtc.Config{}}})
	if err != nil {
		t.Fatal(err)
	}
	if second.Outcome != roomproto.ClaimNew || second.Player == nil {
		t.Fatalf("second claim: %+v", second)
	}
	defer second.Player.Close()
	// The introduced player reaches the new host over its data channel.
	if err := second.Player.Conn().Send(second.Player.Conn().RemoteAddr(), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, from := testutil.Recv(t, first.Host.Conn(), buf); string(buf[:n]) != "hello" || from != webrtc.PeerAddr(second.Player.ID()) {
		t.Fatalf("new host got %q from %s", buf[:n], from)
	}
	first.Host.End()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := roomclient.ClaimRoom(ctx, roomclient.ClaimOptions{URL: r.url, Code: code, Key: key})
		if err == nil { // the end had not reached the relay yet
			if c.Player != nil {
				c.Player.Close()
			}
			if c.Host != nil {
				c.Host.Close()
			}
		}
		if errors.Is(err, roomproto.ErrRoomEnded) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("claim after the end: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClaimRoomHostHearsWaitingClaimants: over a real relay on 127.0.0.1,
// claimants that cannot host wait on an orphaned room; another takes it
// over, and the relay introduces them to it right behind its "hosted"
// answer. The new host hears every one of those messages (its reader
// must not stall on them, as it once did on the second): every waiting
// claimant's data channel to it opens, and it keeps answering the
// relay's pings.
func TestClaimRoomHostHearsWaitingClaimants(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	r := startTestRelay(t, RoomConfig{PingInterval: 50 * time.Millisecond, HostTimeout: 10 * time.Second,
		TickInterval: 10 * time.Millisecond})
	ctx := testCtx(t)
	host, err := roomclient.HostRoom(ctx, roomclient.HostOptions{URL: r.url, Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	code, key := host.Code(), host.Key()
	host.Close()
	type claimed struct {
		c   *roomclient.Claimed
		err error
	}
	const n = 6
	waiting := make(chan claimed, n)
	for range n {
		go func() {
			c, err := roomclient.ClaimRoom(ctx, roomclient.ClaimOptions{URL: r.url, Code: code, Key: key, NoHost: true})
			waiting <- claimed{c, err}
		}()
	}
	testutil.WaitUntil(ctx, t, "the claimants waiting", func() bool {
		r.srv.hub.mu.Lock()
		defer r.srv.hub.mu.Unlock()
		room := r.srv.hub.rooms[code]
		return room != nil && room.orphaned && len(room.claims) == n
	})
	first, err := roomclient.ClaimRoom(ctx, roomclient.ClaimOptions{URL: r.url, Code: code, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Host.Close()
	if first.Outcome != roomproto.ClaimHost {
		t.Fatalf("hosting claim: %+v", first)
	}
	for range n {
		w := <-waiting
		if w.err != nil {
			t.Fatalf("waiting claimant: %v", w.err)
		}
		defer w.c.Player.Close()
		if w.c.Outcome != roomproto.ClaimNew {
			t.Fatalf("waiting claimant: %+v", w.c)
		}
	}
	// Pings every 50 ms: the new host's last pong is recent for a while.
	r.srv.hub.mu.Lock()
	pinged := r.srv.hub.rooms[code].pingN
	r.srv.hub.mu.Unlock()
	testutil.WaitUntil(ctx, t, "the new host answering 5 more pings", func() bool {
		r.srv.hub.mu.Lock()
		defer r.srv.hub.mu.Unlock()
		room := r.srv.hub.rooms[code]
		return room.pingN >= pinged+5 && room.lastPong.After(room.lastPing.Add(-60*time.Millisecond))
	})
}

// TestClaimToAHostThatGoes: over a real relay on 127.0.0.1, a claimant
// is sent back to the room's host, which answered the relay's probe, but
// that host goes before the claimant's data channel to it opens (a host
// that answers pings while it leaves: here a raw WebSocket host that
// never answers an offer). The relay orphans the room and tells the
// claimant: its claim fails with roomproto.ErrHostGone instead of waiting for a
// data channel that cannot open, and a second claim hosts the room.
func TestClaimToAHostThatGoes(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	r := startTestRelay(t, RoomConfig{})
	ctx := testCtx(t)
	ws := dialRaw(t, r.url)
	writeRaw(t, ws, string((&roomproto.Msg{Type: roomproto.MsgHost, V: roomproto.Version, Migrate: true}).Encode()))
	_, b, err := ws.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hosted, _ := decodeReply(b)
	if hosted.Type != roomproto.MsgHosted {
		t.Fatalf("got %s, want hosted", b)
	}
	claimErr := make(chan error, 1)
	go func() {
		c, err := roomclient.ClaimRoom(ctx, roomclient.ClaimOptions{URL: r.url, Code: hosted.Code, Key: hosted.Key})
		if err == nil {
			c.Player.Close()
		}
		claimErr <- err
	}()
	// The host answers the probe, then leaves once the claimant's offer
	// is in.
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := decodeReply(b)
		if m.Type == roomproto.MsgPing {
			writeRaw(t, ws, string((&roomproto.Msg{Type: roomproto.MsgPong, N: m.N}).Encode()))
		}
		if m.Type == roomproto.MsgSignal {
			break
		}
	}
	ws.CloseNow()
	select {
	case err := <-claimErr:
		if !errors.Is(err, roomproto.ErrHostGone) {
			t.Fatalf("claim to the host that went: %v, want roomproto.ErrHostGone", err)
		}
	case <-ctx.Done():
		t.Fatal("the claim still waits for the data channel of a host that went")
	}
	again, err := roomclient.ClaimRoom(ctx, roomclient.ClaimOptions{URL: r.url, Code: hosted.Code, Key: hosted.Key})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Host.Close()
	if again.Outcome != roomproto.ClaimHost {
		t.Fatalf("second claim: %+v", again)
	}
}
