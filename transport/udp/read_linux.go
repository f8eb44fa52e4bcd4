//go:build linux

package udp

import (
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// udpMmsg is struct mmsghdr of linux/socket.h: a message header and the
// length the kernel received into it (Go pads the struct as C does).
type udpMmsg struct {
	hdr unix.Msghdr
	len uint32
}

// sysRecvmmsg is recvmmsg(2)'s number (a variable: a test makes it
// one the kernel does not have, to see the fallback).
var sysRecvmmsg uintptr = unix.SYS_RECVMMSG

// udpReadSys reads with recvmmsg(2), called on the socket's RawConn so
// that the Go poller waits while nothing is there: up to the reader's batch
// datagrams per call into the reader's buffers, with each source written
// into a preallocated sockaddr (golang.org/x/net's ReadBatch would
// allocate an address per datagram).
//
// Like sendmmsg (udpBatchSys), recvmmsg is a raw system call
// (unix.RawSyscall6: non-blocking, EAGAIN lets the poller wait): as an
// ordinary one, the runtime's monitor (sysmon) kept waking every 20 µs
// to watch it, 10 % of a host.Multi's CPU at 100 matches (bench fleet on a
// quiet machine: 19.8-21.5 against 17.0-19.6 µs per player-tick, ABBA).
// (With the host.Multi's earlier dispatcher, the raw call measured
// dearer instead: docs/benchmarks.md.)
type udpReadSys struct {
	raw   syscall.RawConn // nil: recvmmsg is not used (readOne instead)
	msgs  [udpReadBatch]udpMmsg
	iovs  [udpReadBatch]unix.Iovec
	names [udpReadBatch]unix.RawSockaddrInet6 // large enough for IPv4 too
	recv  func(fd uintptr) bool               // made once: no closure per read
	// ctrl receives each datagram's arrival stamp (SCM_TIMESTAMPNS) when
	// the socket is a drainSock; nil otherwise.
	ctrl  *[udpReadBatch][udpStampSpace]byte
	got   int
	errno syscall.Errno
	zones map[uint32]string // IPv6 scope ids seen, by their interface names
}

func (y *udpReadSys) init(r *udpReader) {
	raw, err := r.conn.SyscallConn()
	if err != nil {
		return // readOne then
	}
	y.raw = raw
	if _, ok := r.conn.(*drainSock); ok {
		y.ctrl = new([udpReadBatch][udpStampSpace]byte)
	}
	for i := range r.batch {
		b := r.buf(i)
		y.iovs[i].Base = &b[0]
		y.iovs[i].SetLen(len(b))
		h := &y.msgs[i].hdr
		h.Name = (*byte)(unsafe.Pointer(&y.names[i]))
		h.Iov = &y.iovs[i]
		h.SetIovlen(1)
	}
	y.recv = func(fd uintptr) bool {
		for {
			n, _, e := unix.RawSyscall6(sysRecvmmsg, fd, uintptr(unsafe.Pointer(&y.msgs[0])), uintptr(r.batch), 0, 0, 0)
			switch e {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return false // nothing waiting: the poller waits for more
			}
			y.got, y.errno = int(n), e
			return true
		}
	}
}

// read reads a batch; ok is false when recvmmsg is not available (the
// caller reads one datagram instead).
func (y *udpReadSys) read(r *udpReader) (n int, ok bool, err error) {
	if y.raw == nil {
		return 0, false, nil
	}
	for i := range r.batch {
		// The kernel writes back each name's length and the flags.
		y.msgs[i].hdr.Namelen = uint32(unsafe.Sizeof(y.names[i]))
		y.msgs[i].hdr.Flags = 0
		if y.ctrl != nil {
			y.msgs[i].hdr.Control = &y.ctrl[i][0]
			y.msgs[i].hdr.SetControllen(udpStampSpace)
		}
	}
	y.got, y.errno = 0, 0
	if err := y.raw.Read(y.recv); err != nil {
		return 0, true, err
	}
	if y.errno != 0 {
		switch y.errno {
		case unix.ENOSYS, unix.EPERM, unix.EACCES:
			// A kernel without recvmmsg, or a sandbox that forbids it:
			// reading one datagram per call from now on (rather than
			// failing every read).
			y.raw = nil
			return 0, false, nil
		}
		return 0, true, y.errno
	}
	for i := range y.got {
		r.n[i] = min(int(y.msgs[i].len), udpReadBufLen)
		r.from[i] = y.source(i)
		r.at[i] = y.stamp(i)
	}
	return y.got, true, nil
}

// udpStampSpace is the control buffer of one datagram's arrival stamp:
// room for a cmsghdr and a timespec, aligned (32 bytes on 64-bit Linux).
const udpStampSpace = 64

// udpTimespecLen is the size of the stamp's timespec.
const udpTimespecLen = int(unsafe.Sizeof(unix.Timespec{}))

// stamp is the i-th datagram's arrival as the kernel stamped it (unix
// nanoseconds), 0 without one.
func (y *udpReadSys) stamp(i int) int64 {
	h := &y.msgs[i].hdr
	if y.ctrl == nil || int(h.Controllen) < unix.CmsgLen(udpTimespecLen) {
		return 0
	}
	c := (*unix.Cmsghdr)(unsafe.Pointer(&y.ctrl[i][0]))
	if c.Level != unix.SOL_SOCKET || c.Type != unix.SCM_TIMESTAMPNS {
		return 0
	}
	ts := (*unix.Timespec)(unsafe.Pointer(&y.ctrl[i][unix.CmsgLen(0)]))
	return ts.Nano()
}

// source is the i-th datagram's source address.
func (y *udpReadSys) source(i int) netip.AddrPort {
	sa := &y.names[i]
	port := func(p uint16) uint16 { // network byte order, as stored
		b := (*[2]byte)(unsafe.Pointer(&p))
		return uint16(b[0])<<8 | uint16(b[1])
	}
	switch sa.Family {
	case unix.AF_INET:
		sa4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom4(sa4.Addr), port(sa4.Port))
	case unix.AF_INET6:
		ip := netip.AddrFrom16(sa.Addr)
		if sa.Scope_id != 0 {
			ip = ip.WithZone(y.zone(sa.Scope_id))
		}
		return netip.AddrPortFrom(ip, port(sa.Port))
	}
	return netip.AddrPort{}
}

// zone names an IPv6 scope id as the net package does (the interface's
// name, else the number), remembering it: link-local peers are rare and
// their interfaces few.
func (y *udpReadSys) zone(id uint32) string {
	if z, ok := y.zones[id]; ok {
		return z
	}
	z := strconv.FormatUint(uint64(id), 10)
	if ifi, err := net.InterfaceByIndex(int(id)); err == nil {
		z = ifi.Name
	}
	if y.zones == nil {
		y.zones = make(map[uint32]string)
	}
	y.zones[id] = z
	return z
}
