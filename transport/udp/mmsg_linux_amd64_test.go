package udp

import (
	"fmt"
	"net"
	"syscall"
	"testing"
	"unsafe"
)

// mmsghdr is struct mmsghdr of linux/socket.h on amd64.
type mmsghdr struct {
	hdr syscall.Msghdr
	len uint32
	_   [4]byte
}

// BenchmarkUDPRawCost is the floor under any UDP transport here: the cost
// of one 109-byte datagram written by a plain connected socket to a socket
// nobody reads (the kernel drops what overflows), one write(2) per
// datagram, against sendmmsg(2) batches of 16 and 64, interleaved in the
// same run. It decides whether batching is worth building: see
// docs/benchmarks.md.
func BenchmarkUDPRawCost(b *testing.B) {
	sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer sink.Close()
	conn, err := net.DialUDP("udp", nil, sink.LocalAddr().(*net.UDPAddr))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	raw, err := conn.SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	p := make([]byte, 100+udpDataOverhead)
	for _, batch := range []int{16, 64} {
		b.Run(fmt.Sprintf("batch%d", batch), func(b *testing.B) {
			iov := make([]syscall.Iovec, batch)
			msgs := make([]mmsghdr, batch)
			for i := range msgs {
				iov[i].Base = &p[0]
				iov[i].SetLen(len(p))
				msgs[i].hdr.Iov = &iov[i]
				msgs[i].hdr.Iovlen = 1
			}
			var serr syscall.Errno
			send := func(fd uintptr) bool {
				_, _, serr = syscall.Syscall6(sysSendmmsg, fd,
					uintptr(unsafe.Pointer(&msgs[0])), uintptr(batch), 0, 0, 0)
				return true
			}
			udpInterleave(b, batch, "write", func() {
				for range batch {
					conn.Write(p)
				}
			}, "sendmmsg", func() {
				raw.Write(send)
				if serr != 0 {
					b.Fatal(serr)
				}
			}, "mmsg-rate-vs-write")
		})
	}
}
