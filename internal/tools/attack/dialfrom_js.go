package attack

import (
	"context"
	"errors"
	"net"

	"github.com/coder/websocket"
)

// dialFrom is not available in a browser: it cannot choose the address
// it dials from.
func dialFrom(context.Context, string, net.IP) (*websocket.Conn, error) {
	return nil, errors.New("attack: dialing from a chosen address is not possible under js")
}
