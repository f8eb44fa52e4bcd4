//go:build !js

package attack

import (
	"context"
	"net"
	"net/http"

	"github.com/coder/websocket"
)

// dialFrom dials the relay's WebSocket at url from the loopback address
// ip.
func dialFrom(ctx context.Context, url string, ip net.IP) (*websocket.Conn, error) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}
	hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: hc})
	return c, err
}
