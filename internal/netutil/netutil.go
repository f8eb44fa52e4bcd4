// Package netutil holds small network helpers shared by the relay and the
// rewind command; nothing outside this module needs them.
package netutil

import "net"

// FirstIPv4 returns the first up, non-loopback IPv4 address of this
// machine, or 127.0.0.1: the address to advertise when listening on an
// unspecified address.
func FirstIPv4() net.IP {
	ifaces, _ := net.Interfaces()
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
				return n.IP.To4()
			}
		}
	}
	return net.IPv4(127, 0, 0, 1)
}
