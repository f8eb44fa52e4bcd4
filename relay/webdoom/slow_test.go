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

func testSlowConsumer(t *testing.T, cfg ServerConfig) {
	cfg.RateCap = 1 << 30
	cfg.Drop = 10 * time.Second
	srv, base := startOn(t, cfg, func(l net.Listener) net.Listener { return smallBufListener{l} })
	l := wdDial(t, base, "/ws/lobby")
	l.SendJSON(wdCtx(t, time.Second), `{"t":"start"}`)
	wdUntil(t, l, "launch")
	p := wdPlay(t, base, "/ws/game?slot=0")
	// A spectator that never reads, with a small receive buffer.
	dialer := &net.Dialer{}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4096)
		}
		return c, err
	}}}
	spec, _, err := websocket.Dial(wdCtx(t, 5*time.Second), base+"/ws/spectate", &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	defer spec.CloseNow()
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
