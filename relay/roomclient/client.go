package roomclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// The relay's client side: a match host calls HostRoom, a player JoinRoom;
// both get a transport.Conn over WebRTC data channels whose signaling went
// through the relay.

// roomClient is one WebSocket to the relay: a reader goroutine handing
// messages to handle, and a writer goroutine owning the writer.
type roomClient struct {
	ws     *websocket.Conn
	out    chan []byte
	done   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
	closed sync.Once
	// unsent counts messages queued and not yet written: close flushes
	// until it is 0 (the queue's length alone misses the one the writer
	// has taken and is writing, such as a host's End).
	unsent atomic.Int32
	// nonce is the relay's nonce for this connection
	// (roomproto.NonceHeader), which a match server's proof covers.
	nonce string
}

const (
	roomClientQueue     = 1024
	roomClientReadLimit = 1 << 20
	roomClientWrite     = 5 * time.Second
)

// dialRoom dials the relay; the reader goroutine hands every message to
// the handler that newHandle makes for the connection.
func dialRoom(ctx context.Context, rawURL string, newHandle func(*roomClient) func(roomproto.Msg)) (*roomClient, error) {
	ws, resp, err := websocket.Dial(ctx, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("relay: dial %s: %w", rawURL, dialError(rawURL, resp, err))
	}
	ws.SetReadLimit(roomClientReadLimit)
	rc := &roomClient{ws: ws, out: make(chan []byte, roomClientQueue), done: make(chan struct{})}
	if resp != nil { // nil in a browser, which hides the upgrade's headers
		rc.nonce = resp.Header.Get(roomproto.NonceHeader)
	}
	handle := newHandle(rc)
	rc.wg.Add(2)
	go rc.readLoop(handle)
	go rc.writeLoop()
	return rc, nil
}

// dialRoomGated dials the relay for a host or a player: the first message
// (the answer to the first request) goes to replies, where firstReply
// reads it; every later one waits until start is called (or the
// connection ends), then goes to handle, in order, on the reader
// goroutine. The relay may send more right behind its answer (a
// claimant that takes a room over hears of the claimants introduced to
// it at once): they wait in order, none is dropped, and the reader never
// blocks on replies.
func dialRoomGated(ctx context.Context, rawURL string, handle func(roomproto.Msg)) (rc *roomClient, replies <-chan roomproto.Msg, start func(), err error) {
	ch := make(chan roomproto.Msg, 1)
	ready := make(chan struct{})
	rc, err = dialRoom(ctx, rawURL, func(rc *roomClient) func(roomproto.Msg) {
		first := true // only the reader goroutine reads and writes it
		return func(m roomproto.Msg) {
			if first {
				first = false
				ch <- m // never blocks: ch holds one, and this is the first
				return
			}
			select {
			case <-ready:
				handle(m)
			case <-rc.done:
			}
		}
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return rc, ch, func() { close(ready) }, nil
}

func (rc *roomClient) readLoop(handle func(roomproto.Msg)) {
	defer rc.wg.Done()
	for {
		_, b, err := rc.ws.Read(context.Background())
		if err != nil {
			rc.fail(fmt.Errorf("%w: %w", roomproto.ErrRelayClosed, err))
			return
		}
		var m roomproto.Msg
		if err := json.Unmarshal(b, &m); err != nil {
			rc.fail(fmt.Errorf("relay sent a bad message: %w: %w", roomproto.ErrBadMessage, err))
			return
		}
		handle(m)
	}
}

func (rc *roomClient) writeLoop() {
	defer rc.wg.Done()
	for {
		select {
		case b := <-rc.out:
			ctx, cancel := context.WithTimeout(context.Background(), roomClientWrite)
			err := rc.ws.Write(ctx, websocket.MessageText, b)
			cancel()
			rc.unsent.Add(-1)
			if err != nil {
				rc.fail(fmt.Errorf("%w: %w", roomproto.ErrRelayClosed, err))
				return
			}
		case <-rc.done:
			return
		}
	}
}

// send queues m for the relay; it waits while the queue is full.
func (rc *roomClient) send(m *roomproto.Msg) {
	rc.unsent.Add(1)
	select {
	case rc.out <- m.Encode():
	case <-rc.done:
		rc.unsent.Add(-1)
	}
}

// fail ends the connection with err (the first error wins).
func (rc *roomClient) fail(err error) {
	rc.closed.Do(func() {
		rc.mu.Lock()
		rc.err = err
		rc.mu.Unlock()
		close(rc.done)
		_ = rc.ws.CloseNow()
	})
}

// Err returns the error the connection failed with (nil while it is up).
func (rc *roomClient) Err() error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.err
}

// close flushes queued messages until each is written (for a second at
// most), closes the WebSocket and waits for the goroutines.
func (rc *roomClient) close() {
	deadline := time.After(time.Second)
flush:
	for rc.unsent.Load() > 0 {
		select {
		case <-rc.done:
			break flush
		case <-deadline:
			break flush
		case <-time.After(time.Millisecond):
		}
	}
	rc.closed.Do(func() {
		rc.mu.Lock()
		rc.err = roomproto.ErrRelayClosed
		rc.mu.Unlock()
		close(rc.done)
		_ = rc.ws.Close(websocket.StatusNormalClosure, "bye")
	})
	rc.wg.Wait()
}

// roomEnd remembers why a room ended, for a host or a player: the first
// reason set wins.
type roomEnd struct {
	mu    sync.Mutex
	ended error
}

// set records err unless a reason is already recorded.
func (e *roomEnd) set(err error) {
	e.mu.Lock()
	if e.ended == nil {
		e.ended = err
	}
	e.mu.Unlock()
}

// err returns the recorded reason, or else rc's error (nil while rc is
// open).
func (e *roomEnd) err(rc *roomClient) error {
	e.mu.Lock()
	err := e.ended
	e.mu.Unlock()
	if err != nil {
		return err
	}
	return rc.Err()
}

// IsLoopbackURL reports whether a relay URL's host is a loopback address
// ("localhost", 127.0.0.0/8, ::1): then every party runs on this machine
// and WebRTC should use loopback candidates only.
func IsLoopbackURL(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// webrtcConfig completes a WebRTC config with the relay's ICE servers and
// loopback mode.
func webrtcConfig(base webrtc.Config, relayURL string, ice []webrtc.ICEServer) webrtc.Config {
	if IsLoopbackURL(relayURL) {
		base.Loopback = true
	}
	base.ICEServers = append(append([]webrtc.ICEServer(nil), base.ICEServers...), ice...)
	return base
}

// firstReply waits for the answer to a request: the message of type want
// (any type when want is empty), or an error message, or the end of the connection or ctx.
func firstReply(ctx context.Context, rc *roomClient, replies <-chan roomproto.Msg, want string) (roomproto.Msg, error) {
	select {
	case m := <-replies:
		return replyOf(m, want)
	case <-rc.done:
		// The relay answers and then closes (a refusal): both are ready
		// and select picks either, so an answer that came before the end
		// still wins.
		select {
		case m := <-replies:
			return replyOf(m, want)
		default:
		}
		return roomproto.Msg{}, rc.Err()
	case <-ctx.Done():
		return roomproto.Msg{}, fmt.Errorf("relay: waiting for %q: %w: %w", want, ErrNoAnswer, ctx.Err())
	}
}

// replyOf is the answer m to a request that wants a message of type want.
func replyOf(m roomproto.Msg, want string) (roomproto.Msg, error) {
	if m.Type == roomproto.MsgError {
		return m, &roomproto.Error{Code: m.Error, Re: m.Re, Reason: m.Reason}
	}
	if want != "" && m.Type != want {
		return m, fmt.Errorf("%w: relay answered %q, want %q", roomproto.ErrBadMessage, m.Type, want)
	}
	return m, nil
}
