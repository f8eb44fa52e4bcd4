package webdoomclient

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// Conn is a client's WebSocket to a WebDoom server (rewind's or
// WebDoom's own): the lobby, a game slot or the spectator endpoint. It is
// what rewind's tests, harness and benchmarks play WebDoom with.
type Conn struct {
	c *websocket.Conn
}

// Dial connects to base (ws://host:port) at path, e.g. "/ws/lobby"
// or "/ws/game?slot=2".
func Dial(ctx context.Context, base, path string) (*Conn, error) {
	c, resp, err := websocket.Dial(ctx, base+path, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("webdoom dial %s: %w", path, err)
	}
	c.SetReadLimit(1 << 20)
	return &Conn{c: c}, nil
}

// SendJSON sends one text message.
func (w *Conn) SendJSON(ctx context.Context, s string) error {
	return w.c.Write(ctx, websocket.MessageText, []byte(s))
}

// SendBinary sends one binary message.
func (w *Conn) SendBinary(ctx context.Context, b []byte) error {
	return w.c.Write(ctx, websocket.MessageBinary, b)
}

// SendCmd sends this client's ticcmd for tic.
func (w *Conn) SendCmd(ctx context.Context, tic uint32, cmd wire.TicCmd) error {
	return w.SendBinary(ctx, wire.Cmd{Tic: tic, Cmd: cmd}.Append(nil))
}

// Read returns the next message. A socket the server terminated or closed
// fails with an error wrapping ErrRefused.
func (w *Conn) Read(ctx context.Context) (websocket.MessageType, []byte, error) {
	typ, b, err := w.c.Read(ctx)
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("%w: %w", ErrRefused, err)
	}
	return typ, b, err
}

// ReadLobby returns the next lobby message, decoded.
func (w *Conn) ReadLobby(ctx context.Context) (map[string]any, error) {
	_, b, err := w.Read(ctx)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("webdoom lobby message %q: %w", b, err)
	}
	return m, nil
}

// ReadBundle returns the next sealed bundle.
func (w *Conn) ReadBundle(ctx context.Context) (wire.Bundle, error) {
	_, b, err := w.Read(ctx)
	if err != nil {
		return wire.Bundle{}, err
	}
	return wire.DecodeBundleMessage(b)
}

// CloseStatus returns the close code of an error from Read (-1 when the
// socket ended without a close frame).
func CloseStatus(err error) int { return int(websocket.CloseStatus(err)) }

// Close closes the socket with a normal close frame.
func (w *Conn) Close() error { return w.c.Close(websocket.StatusNormalClosure, "") }

// CloseNow ends the socket without a close frame.
func (w *Conn) CloseNow() error { return w.c.CloseNow() }
