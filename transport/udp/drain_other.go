//go:build !linux

package udp

import (
	"errors"
	"net"
)

// errNothingWaiting is a drained read that found no datagram (Linux
// only: elsewhere Config.Drained is ignored).
var errNothingWaiting = errors.New("transport: udp: nothing waiting")

// newDrainSock is nil where a socket cannot be kept out of the poller:
// the server reads as datagrams arrive, as without Config.Drained.
func newDrainSock(*net.UDPConn) (udpSocket, error) { return nil, nil }
