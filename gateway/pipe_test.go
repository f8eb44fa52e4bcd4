package gateway_test

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
)

// pipeListener is a net.Listener of in-memory connections (net.Pipe):
// the gateway served over it runs whole inside a testing/synctest
// bubble, its timers in made-up time, where a real socket would not
// (its reads never count as durably blocked).
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// newPipeListener returns a listener; create it inside the bubble.
func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept returns the server's end of the next dialed connection.
func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and dial.
func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is a placeholder: there is no address.
func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// dial is an http.Transport's DialContext: a pipe whose other end
// Accept returns.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	c, s := net.Pipe()
	select {
	case l.conns <- s:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pipeAddr is the address of a pipe.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// newPipeMatch is newMatchServer served over a pipeListener instead of
// a TCP socket: call it inside a synctest bubble. Dial with
// m.dialPipe.
func newPipeMatch(t *testing.T, scfg rewind.ServerConfig, cfg gateway.Config[walkers.Input]) (*match, func(ctx context.Context) *websocket.Conn) {
	t.Helper()
	m, stopCore := newMatchCore(t, scfg, cfg)
	l := newPipeListener()
	srv := &http.Server{Handler: m.gw}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	tr := &http.Transport{DialContext: l.dial}
	m.url = "ws://pipe/"
	var once sync.Once
	m.stop = func() {
		once.Do(func() {
			_ = m.gw.Close()
			_ = srv.Close()
			<-served
			tr.CloseIdleConnections()
			stopCore()
		})
	}
	t.Cleanup(m.stop)
	dial := func(ctx context.Context) *websocket.Conn {
		ws, _, err := websocket.Dial(ctx, m.url, &websocket.DialOptions{HTTPClient: &http.Client{Transport: tr}})
		if err != nil {
			t.Fatal(err)
		}
		ws.SetReadLimit(1 << 20)
		t.Cleanup(func() { _ = ws.CloseNow() })
		return ws
	}
	return m, dial
}
