//go:build !unix

package udp

import "syscall"

// socketBuffers, where the socket's buffer sizes are not read (Windows,
// js/wasm): ok is false.
func socketBuffers(syscall.Conn) (read, write int, ok bool) { return 0, 0, false }
