//go:build linux

package udp

import (
	"encoding/binary"
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sysSendmmsg is sendmmsg(2)'s number (a variable: a test makes it one
// the kernel does not have, to see the fallback).
var sysSendmmsg uintptr = unix.SYS_SENDMMSG

// udpBatchSys sends a batch with sendmmsg(2), called on the socket's
// RawConn, from message headers, iovecs and socket addresses allocated
// once (golang.org/x/net's WriteBatch marshals an address per datagram
// and takes its buffers from a pool on every call). An IPv4 peer's
// address goes as a sockaddr_in, which Linux takes on a dual-stack IPv6
// socket as well.
//
// The call is a raw system call (unix.RawSyscall6): sendmmsg on the
// non-blocking socket never blocks (a full send buffer returns EAGAIN,
// and the poller waits), so the goroutine keeps its P for the few hundred
// microseconds a batch takes instead of entering a system call that the
// runtime's monitor (sysmon) would watch, retake the P from and hand to
// another thread: on a server that sends a batch every few hundred
// microseconds, that watching kept sysmon waking every 20 µs.
type udpBatchSys struct {
	raw   syscall.RawConn // nil: no sendmmsg (flushEach instead)
	msgs  [udpBatchLen]udpMmsg
	iovs  [udpBatchLen]unix.Iovec
	names [udpBatchLen]unix.RawSockaddrInet6 // large enough for IPv4 too
	send  func(fd uintptr) bool              // made once: no closure per flush
	from  int                                // the first message the next call sends
	n     int                                // the messages in this flush
	got   int
	errno syscall.Errno
}

func (y *udpBatchSys) init(b *udpBatch) {
	raw, err := b.s.conn.SyscallConn()
	if err != nil {
		return
	}
	y.raw = raw
	for i := range y.msgs {
		h := &y.msgs[i].hdr
		h.Name = (*byte)(unsafe.Pointer(&y.names[i]))
		h.Iov = &y.iovs[i]
		h.SetIovlen(1)
	}
	y.send = func(fd uintptr) bool {
		for {
			n, _, e := unix.RawSyscall6(sysSendmmsg, fd, uintptr(unsafe.Pointer(&y.msgs[y.from])), uintptr(y.n-y.from), 0, 0, 0)
			switch e {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return false // the send buffer is full: the poller waits
			}
			y.got, y.errno = int(n), e
			return true
		}
	}
}

func (y *udpBatchSys) flush(b *udpBatch, n int) {
	if y.raw == nil {
		b.flushEach(0, n)
		return
	}
	for i := range n {
		if !y.name(i, &b.addrs[i]) {
			b.flushEach(0, n) // a zoned IPv6 peer: one write each
			return
		}
		y.iovs[i].Base = unsafe.SliceData(b.bufs[i])
		y.iovs[i].SetLen(len(b.bufs[i]))
	}
	y.n = n
	for y.from = 0; y.from < n; {
		y.got, y.errno = 0, 0
		err := y.raw.Write(y.send)
		if err != nil || y.errno != 0 || y.got <= 0 {
			if y.errno == unix.ENOSYS || y.errno == unix.EPERM || y.errno == unix.EACCES {
				// A kernel without sendmmsg, or a sandbox that forbids
				// it: one write each from now on.
				y.raw = nil
				b.flushEach(y.from, n)
				return
			}
			// What sendmmsg refused (its first datagram failed): count
			// that one as a send error, as a single write would, and go
			// on with the rest one by one.
			b.s.stats.sendErrors.Add(1)
			b.flushEach(y.from+1, n)
			return
		}
		for i := y.from; i < y.from+y.got; i++ {
			b.s.stats.wrote(len(b.bufs[i]), nil)
		}
		y.from += y.got
	}
}

// name writes a's socket address into message i's name; false for an
// IPv6 address with a zone (its interface index is not at hand).
func (y *udpBatchSys) name(i int, a *net.UDPAddr) bool {
	sa := &y.names[i]
	h := &y.msgs[i].hdr
	var port [2]byte
	binary.BigEndian.PutUint16(port[:], uint16(a.Port))
	if ip4 := a.IP.To4(); ip4 != nil {
		sa4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		*sa4 = unix.RawSockaddrInet4{Family: unix.AF_INET}
		sa4.Port = *(*uint16)(unsafe.Pointer(&port[0]))
		copy(sa4.Addr[:], ip4)
		h.Namelen = uint32(unsafe.Sizeof(*sa4))
		return true
	}
	if a.Zone != "" || len(a.IP) != net.IPv6len {
		return false
	}
	*sa = unix.RawSockaddrInet6{Family: unix.AF_INET6}
	sa.Port = *(*uint16)(unsafe.Pointer(&port[0]))
	copy(sa.Addr[:], a.IP)
	h.Namelen = uint32(unsafe.Sizeof(*sa))
	return true
}
