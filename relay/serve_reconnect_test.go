package relay

import (
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport"
)

// TestServeRoomsReconnect: the relay drops a match server's connection
// (the server is not gone); with Reconnect the server registers again
// and claims its room back under the same code; a player joins it and
// reaches the server's Conn under the name of the second connection
// (id@1), apart from the first connection's players.
func TestServeRoomsReconnect(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	r := startTestRelay(t, RoomConfig{})
	ctx := testCtx(t)
	reconnected := make(chan string, 4)
	s, err := roomclient.ServeRooms(ctx, roomclient.ServeOptions{URL: r.url, Slots: 2, Reconnect: 10 * time.Second,
		OnReconnected: func(url string) { reconnected <- url }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	code, err := s.Host(ctx, "K3F9QX")
	if err != nil {
		t.Fatal(err)
	}
	h := r.srv.hub
	h.mu.Lock()
	for _, c := range h.conns {
		if c.role == roleServer {
			h.kill(c, websocket.StatusPolicyViolation, "test: dropped")
		}
	}
	h.mu.Unlock()
	select {
	case url := <-reconnected:
		if url != r.url {
			t.Fatalf("reconnected at %s", url)
		}
	case <-ctx.Done():
		t.Fatal("no reconnection")
	}
	testutil.WaitUntil(ctx, t, "the room claimed back", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		rm := h.rooms[code]
		return rm != nil && rm.host != nil && rm.host.role == roleServer
	})
	if k, ok := s.Key(code); !ok || len(k) != roomproto.KeyHexLen {
		t.Fatalf("the server's key of %s: %q %v", code, k, ok)
	}
	select {
	case <-s.Done():
		t.Fatal("Done closed though the server reconnected")
	default:
	}
	p, err := roomclient.JoinRoom(ctx, roomclient.JoinOptions{URL: r.url, Code: code})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Conn().Send(p.Conn().RemoteAddr(), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, transport.MaxDatagram)
	n, from := testutil.Recv(t, s.Conn(), buf)
	if want := roomclient.RoomPeerAddr(code, p.ID()+"@1"); from != want || string(buf[:n]) != "hello" || roomclient.RoomOfPeer(from) != code {
		t.Fatalf("server got %q from %s, want from %s", buf[:n], from, want)
	}
	s.Close()
	select {
	case <-s.Done():
	case <-ctx.Done():
		t.Fatal("Done not closed by Close")
	}
}
