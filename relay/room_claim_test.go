package relay

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testutil"
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
	host, err := HostRoom(ctx, HostOptions{URL: r.url, Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := JoinRoom(ctx, JoinOptions{URL: r.url, Code: host.Code()})
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
	if _, err := ClaimRoom(ctx, ClaimOptions{URL: r.url, Code: code, Key: "0123456789abcdef0123456789abcdef"}); !errors.Is(err, ErrBadKey) {
		t.Fatalf("claim with another key: %v", err)
	}
	first, err := ClaimRoom(ctx, ClaimOptions{URL: r.url, Code: code, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if first.Outcome != RoomClaimHost || first.Host.Code() != code || first.Host.Key() != key {
		t.Fatalf("first claim: %+v", first)
	}
	defer first.Host.Close()
	second, err := ClaimRoom(ctx, ClaimOptions{URL: r.url, Code: code, Key: key, Host: HostOptions{WebRTC: webrtc.Config{}}})
	if err != nil {
		t.Fatal(err)
	}
	if second.Outcome != RoomClaimNew || second.Player == nil {
		t.Fatalf("second claim: %+v", second)
	}
	defer second.Player.Close()
	// The introduced player reaches the new host over its data channel.
	if err := second.Player.Conn().Send(second.Player.Conn().RemoteAddr(), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, from := roomRecv(t, first.Host.Conn(), buf); string(buf[:n]) != "hello" || from != webrtc.PeerAddr(second.Player.ID()) {
		t.Fatalf("new host got %q from %s", buf[:n], from)
	}
	first.Host.End()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := ClaimRoom(ctx, ClaimOptions{URL: r.url, Code: code, Key: key})
		if err == nil { // the end had not reached the relay yet
			if c.Player != nil {
				c.Player.Close()
			}
			if c.Host != nil {
				c.Host.Close()
			}
		}
		if errors.Is(err, ErrRoomEnded) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("claim after the end: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
