package server

import (
	"net/netip"
	"strings"

	"github.com/rewindnet/rewind/transport"
)

// addrIP returns the IP address an Addr names, if it names one: a
// transport's "SCHEME:IP:PORT#N" (UDP's "udp:IP:PORT#N") or
// "SCHEME:IP#N", schemes possibly nested (the JSON gateway's players are
// "sim:json:IP#N" on its in-process network), possibly inside a
// MultiConn's "N/…". The simulator's own names and WebRTC's name none.
func addrIP(a transport.Addr) (netip.Addr, bool) {
	s := string(a)
	if i := strings.IndexByte(s, '/'); i >= 0 && i < strings.IndexByte(s+":", ':') {
		s = s[i+1:] // a MultiConn's "N/…"
	}
	for {
		scheme, rest, ok := strings.Cut(s, ":")
		if !ok || !isScheme(scheme) {
			return netip.Addr{}, false
		}
		if i := strings.LastIndexByte(rest, '#'); i >= 0 {
			rest = rest[:i]
		}
		if ap, err := netip.ParseAddrPort(rest); err == nil {
			return ap.Addr().Unmap(), true
		}
		if ip, err := netip.ParseAddr(rest); err == nil {
			return ip.Unmap(), true
		}
		s = s[len(scheme)+1:]
	}
}

// isScheme reports whether s is an address scheme: letters, digits, '-'
// and '_', at least one.
func isScheme(s string) bool {
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return s != ""
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
