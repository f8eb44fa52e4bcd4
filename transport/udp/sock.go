package udp

import (
	"net"
	"net/netip"
	"syscall"
)

// udpSocket is what a Server and a udpReader use of their socket: a
// *net.UDPConn (read by a goroutine the Go runtime's poller wakes), or,
// on Linux with Config.Drained, a drainSock: the same socket outside the
// poller, read only when its owner drains it.
type udpSocket interface {
	WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error)
	WriteToUDP(b []byte, addr *net.UDPAddr) (int, error)
	ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error)
	SyscallConn() (syscall.RawConn, error)
	Close() error
}

var _ udpSocket = (*net.UDPConn)(nil)
