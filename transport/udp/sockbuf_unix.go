//go:build unix

package udp

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// socketBuffers reads SO_RCVBUF and SO_SNDBUF of conn's socket.
func socketBuffers(conn syscall.Conn) (read, write int, ok bool) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, 0, false
	}
	var rerr, werr error
	if err := raw.Control(func(fd uintptr) {
		read, rerr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF)
		write, werr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF)
	}); err != nil || rerr != nil || werr != nil {
		return 0, 0, false
	}
	return read, write, true
}
