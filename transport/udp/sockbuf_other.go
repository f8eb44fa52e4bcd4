//go:build !unix

package udp

import "net"

// socketBuffers, where the socket's buffer sizes are not read (Windows,
// js/wasm): ok is false.
func socketBuffers(*net.UDPConn) (read, write int, ok bool) { return 0, 0, false }
