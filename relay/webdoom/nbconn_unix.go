//go:build unix

package webdoom

import "syscall"

// rawWrites: a socket's non-blocking write(2) is at hand.
const rawWrites = true

func rawWrite(fd uintptr, p []byte) (int, error) { return syscall.Write(int(fd), p) }
