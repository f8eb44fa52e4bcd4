//go:build linux

package udp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// drainSock is a server's UDP socket outside the Go runtime's poller
// (Config.Drained): a datagram that arrives wakes no thread of the
// process; it waits in the socket's buffer until the owner drains it
// (Server.Drain). A socket in the poller wakes the runtime's waiting
// thread for every datagram that arrives while the process sleeps, even
// when no goroutine waits to read it: reading at a host's tick phases
// saves nothing unless the socket is out of it.
//
// Its file descriptor is a duplicate of the one the net package opened
// (and then closed, which took the socket out of the poller): non-blocking,
// so a read finds nothing waiting (errNothingWaiting) rather than waits,
// and a send to a full buffer waits in poll(2) for a few milliseconds at
// most. Every system call holds mu for reading; Close takes it for
// writing, so that the descriptor is never used once closed (and
// perhaps reused by another file).
type drainSock struct {
	mu sync.RWMutex
	fd int // -1 once closed
}

// errNothingWaiting is a drainSock's read that found no datagram.
var errNothingWaiting = errors.New("transport: udp: nothing waiting")

// drainSendWait is how long a send waits for room in a full socket
// buffer, in drainSendTries polls, before it fails (as a datagram the
// network dropped).
const (
	drainSendWait  = 5 * time.Millisecond
	drainSendTries = 4
)

// newDrainSock takes conn's socket out of the poller (conn is closed)
// and has the kernel stamp each datagram's arrival (SO_TIMESTAMPNS).
func newDrainSock(conn *net.UDPConn) (udpSocket, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, derr := -1, error(nil)
	if err := raw.Control(func(f uintptr) { fd, derr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	conn.Close()
	if derr != nil {
		return nil, fmt.Errorf("transport: udp: dup: %w", derr)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("transport: udp: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("transport: udp: SO_TIMESTAMPNS: %w", err)
	}
	return &drainSock{fd: fd}, nil
}

// WriteToUDPAddrPort sends b to addr: a raw sendto(2) on the
// non-blocking socket, from a socket address on the stack (nothing
// allocated).
func (s *drainSock) WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error) {
	var sa unix.RawSockaddrInet6
	n, err := sockaddrOf(&sa, addr)
	if err != nil {
		return 0, err
	}
	return s.sendto(b, unsafe.Pointer(&sa), uintptr(n))
}

// Write sends b on a connected socket (a drained Client's): sendto(2)
// without an address.
func (s *drainSock) Write(b []byte) (int, error) { return s.sendto(b, nil, 0) }

// sendto sends b to the socket address at sa (nil: the connected
// peer), waiting a few milliseconds at most for room in the buffer.
func (s *drainSock) sendto(b []byte, sa unsafe.Pointer, salen uintptr) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.fd < 0 {
		return 0, net.ErrClosed
	}
	for try := 0; ; try++ {
		r, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(s.fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), 0, uintptr(sa), salen)
		switch {
		case e == 0:
			return int(r), nil
		case e == unix.EINTR:
		case e == unix.EAGAIN && try < drainSendTries:
			waitWritable(s.fd)
		default:
			return 0, e
		}
	}
}

// WriteToUDP sends b to addr (the batch's fallback).
func (s *drainSock) WriteToUDP(b []byte, addr *net.UDPAddr) (int, error) {
	return s.WriteToUDPAddrPort(b, addr.AddrPort())
}

// ReadFromUDPAddrPort reads one waiting datagram (the reader's fallback
// without recvmmsg), errNothingWaiting if none.
func (s *drainSock) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.fd < 0 {
		return 0, netip.AddrPort{}, net.ErrClosed
	}
	n, from, err := unix.Recvfrom(s.fd, b, 0)
	switch {
	case err == unix.EAGAIN:
		return 0, netip.AddrPort{}, errNothingWaiting
	case err != nil:
		return 0, netip.AddrPort{}, err
	}
	switch a := from.(type) {
	case *unix.SockaddrInet4:
		return n, netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)), nil
	case *unix.SockaddrInet6:
		return n, netip.AddrPortFrom(netip.AddrFrom16(a.Addr), uint16(a.Port)), nil
	}
	return n, netip.AddrPort{}, nil
}

// SyscallConn returns the socket as a syscall.RawConn that never waits
// to read: Read's function returning false (EAGAIN) makes Read return
// errNothingWaiting.
func (s *drainSock) SyscallConn() (syscall.RawConn, error) { return drainRaw{s}, nil }

// Close closes the socket once no system call uses it.
func (s *drainSock) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fd < 0 {
		return net.ErrClosed
	}
	err := unix.Close(s.fd)
	s.fd = -1
	return err
}

// drainRaw is a drainSock's syscall.RawConn.
type drainRaw struct{ s *drainSock }

func (r drainRaw) Control(f func(fd uintptr)) error {
	r.s.mu.RLock()
	defer r.s.mu.RUnlock()
	if r.s.fd < 0 {
		return net.ErrClosed
	}
	f(uintptr(r.s.fd))
	return nil
}

func (r drainRaw) Read(f func(fd uintptr) bool) error {
	r.s.mu.RLock()
	defer r.s.mu.RUnlock()
	if r.s.fd < 0 {
		return net.ErrClosed
	}
	if !f(uintptr(r.s.fd)) {
		return errNothingWaiting
	}
	return nil
}

func (r drainRaw) Write(f func(fd uintptr) bool) error {
	r.s.mu.RLock()
	defer r.s.mu.RUnlock()
	for try := 0; ; try++ {
		if r.s.fd < 0 {
			return net.ErrClosed
		}
		if f(uintptr(r.s.fd)) {
			return nil
		}
		if try == drainSendTries {
			return unix.EAGAIN
		}
		waitWritable(r.s.fd)
	}
}

// waitWritable waits up to drainSendWait for room in fd's send buffer.
func waitWritable(fd int) {
	p := [1]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	unix.Poll(p[:], int(drainSendWait/time.Millisecond))
}

// sockaddrOf writes addr into sa (a sockaddr_in for an IPv4 address,
// which Linux takes on a dual-stack IPv6 socket too) and returns its
// length.
func sockaddrOf(sa *unix.RawSockaddrInet6, addr netip.AddrPort) (int, error) {
	var port [2]byte
	binary.BigEndian.PutUint16(port[:], addr.Port())
	ip := addr.Addr()
	if ip.Is4() {
		sa4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		*sa4 = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: ip.As4()}
		sa4.Port = *(*uint16)(unsafe.Pointer(&port[0]))
		return unix.SizeofSockaddrInet4, nil
	}
	*sa = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: ip.As16()}
	sa.Port = *(*uint16)(unsafe.Pointer(&port[0]))
	if z := ip.Zone(); z != "" {
		ifi, err := net.InterfaceByName(z)
		if err != nil {
			return 0, err
		}
		sa.Scope_id = uint32(ifi.Index)
	}
	return unix.SizeofSockaddrInet6, nil
}
