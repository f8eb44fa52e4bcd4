package webdoom

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// smallBufListener gives every accepted connection a small send buffer, so
// that a peer that stops reading blocks the server's writes quickly.
type smallBufListener struct{ net.Listener }

func (l smallBufListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4096)
	}
	return c, err
}

// TestHarnessSlowConsumer: a spectator that stops reading is dropped
// while the player plays on, either way a sender drops a connection: its
// queue fills (64 messages; its writes stall), or one write stalls past
// WriteTimeout (1 s; a queue that does not fill first). The player's
// queue never holds more than a round of 32 bundles, since the test waits
// for them all before the next round, so its drop would be a fault. (A
// WriteTimeout of 100 ms, as here before, dropped the player too now and
// then: a loaded machine under -race stalls a sender goroutine that long.)
func TestHarnessSlowConsumer(t *testing.T) {
	t.Run("queue", func(t *testing.T) {
		cfg := wdHarnessConfig()
		cfg.SendQueue = 64
		testSlowConsumer(t, cfg)
	})
	t.Run("write", func(t *testing.T) {
		cfg := wdHarnessConfig()
		cfg.SendQueue = 1 << 16
		cfg.WriteTimeout = time.Second
		testSlowConsumer(t, cfg)
	})
}

// TestHarnessSlowPlayer: a player that sends its cmds but reads nothing
// is dropped as slow once its socket's backlog passes its bound (the
// bundles the seal writes straight to it never wait), and the other
// player plays on, never having waited for it.
func TestHarnessSlowPlayer(t *testing.T) {
	cfg := wdHarnessConfig()
	cfg.SendQueue = 16 // a backlog of 1 KiB
	cfg.RateCap = 1 << 30
	cfg.Drop = 10 * time.Second
	srv, base := startOn(t, cfg, func(l net.Listener) net.Listener { return smallBufListener{l} })
	l0, l1 := wdDial(t, base, "/ws/lobby"), wdDial(t, base, "/ws/lobby")
	wdUntil(t, l1, "welcome")
	l0.SendJSON(wdCtx(t, time.Second), `{"t":"start"}`)
	wdUntil(t, l0, "launch")
	p := wdPlay(t, base, "/ws/game?slot=0")
	slow := dialSmallRead(t, base+"/ws/game?slot=1")
	ctx := wdCtx(t, 20*time.Second)
	var msg []byte
	tic := uint32(0)
	for srv.Stats().Drops[DropSlow] == 0 {
		if ctx.Err() != nil {
			t.Fatalf("slow player not dropped after %d tics", tic)
		}
		for range 32 {
			msg = wire.Cmd{Tic: tic, Cmd: wire.TicCmd{byte(tic)}}.Append(msg[:0])
			if err := p.c.SendBinary(context.Background(), msg); err != nil {
				t.Fatal(err)
			}
			if err := slow.Write(context.Background(), websocket.MessageBinary, msg); err != nil {
				t.Fatal(err)
			}
			tic++
		}
		p.waitCount(t, int(tic))
	}
	for deadline := time.Now().Add(5 * time.Second); srv.Status().Players != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slow player still in game")
		}
	}
	p.send(t, tic, 1) // sealed with slot 0's cmd alone
	if b := p.waitCount(t, int(tic)+1)[tic]; b.InGame != 1 {
		t.Errorf("tic %d after the drop: in-game mask %#x", tic, b.InGame)
	}
}

// dialSmallRead dials a WebSocket whose socket has a small receive buffer,
// for a peer that stops reading.
func dialSmallRead(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	dialer := &net.Dialer{}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4096)
		}
		return c, err
	}}}
	c, _, err := websocket.Dial(wdCtx(t, 5*time.Second), url, &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func testSlowConsumer(t *testing.T, cfg ServerConfig) {
	cfg.RateCap = 1 << 30
	cfg.Drop = 10 * time.Second
	srv, base := startOn(t, cfg, func(l net.Listener) net.Listener { return smallBufListener{l} })
	l := wdDial(t, base, "/ws/lobby")
	l.SendJSON(wdCtx(t, time.Second), `{"t":"start"}`)
	wdUntil(t, l, "launch")
	p := wdPlay(t, base, "/ws/game?slot=0")
	dialSmallRead(t, base+"/ws/spectate") // a spectator that never reads
	ctx := wdCtx(t, 20*time.Second)
	var msg []byte
	tic := uint32(0)
	for srv.Stats().Drops[DropSlow] == 0 {
		if ctx.Err() != nil {
			t.Fatalf("spectator not dropped after %d tics", tic)
		}
		for range 32 { // well under the player's own queue
			msg = wire.Cmd{Tic: tic, Cmd: wire.TicCmd{byte(tic)}}.Append(msg[:0])
			if err := p.c.SendBinary(context.Background(), msg); err != nil {
				t.Fatal(err)
			}
			tic++
		}
		p.waitCount(t, int(tic))
	}
	// The player still plays.
	p.send(t, tic, 1)
	p.waitCount(t, int(tic)+1)
	for deadline := time.Now().Add(5 * time.Second); srv.Status().Spectators != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("spectator still attached")
		}
	}
}
