package server

import (
	"net/netip"
	"strings"

	"github.com/rewindnet/rewind/transport"
)

// addrIP returns the IP address an Addr names, if it names one:
// "udp:IP:PORT#N", possibly inside a MultiConn's "N/…".
func addrIP(a transport.Addr) (netip.Addr, bool) {
	s := string(a)
	if i := strings.IndexByte(s, '/'); i >= 0 && !strings.HasPrefix(s, transport.UDPPrefix) {
		s = s[i+1:]
	}
	rest, ok := strings.CutPrefix(s, transport.UDPPrefix)
	if !ok {
		return netip.Addr{}, false
	}
	if i := strings.LastIndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	ap, err := netip.ParseAddrPort(rest)
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}

// fullForIP reports whether the players from from's IP address are at
// Config.MaxPlayersPerIP already.
func (s *Server[I]) fullForIP(from transport.Addr) bool {
	if s.cfg.MaxPlayersPerIP <= 0 {
		return false
	}
	ip, ok := addrIP(from)
	if !ok {
		return false
	}
	n := 0
	for _, p := range s.players {
		if p == nil {
			continue
		}
		if pip, ok := addrIP(p.addr); ok && pip == ip {
			n++
		}
	}
	return n >= s.cfg.MaxPlayersPerIP
}
