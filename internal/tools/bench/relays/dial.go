//go:build !js

package relays

import (
	"net/http"

	"github.com/coder/websocket"
)

// benchDialOptions dials a bench relays client's WebSocket through c
// (bound to its own loopback source address).
func benchDialOptions(c *http.Client) *websocket.DialOptions {
	return &websocket.DialOptions{HTTPClient: c}
}
