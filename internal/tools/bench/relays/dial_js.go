package relays

import (
	"net/http"

	"github.com/coder/websocket"
)

// benchDialOptions is the js/wasm twin: a browser's WebSocket takes no
// HTTP client, so c (its source address) is not used.
func benchDialOptions(c *http.Client) *websocket.DialOptions {
	_ = c
	return &websocket.DialOptions{}
}
