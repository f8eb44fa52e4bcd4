package host

import (
	"net/netip"
	"strings"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
)

// Players per address across rooms (Options.PeersPerAddr, issue 43):
// the routes of the UDP peers of one IP address (IPv6: one /64) are
// counted; a new peer beyond the cap is refused full, whichever room its
// hello names. Peers that are not UDP sessions (a WebRTC room's players,
// named by the relay) are not counted: the relay caps those.

// addrKey is the counting key of a peer's address (a UDP session's,
// or a MultiConn member's UDP session's): its IP, or its IPv6 /64; ok
// is false for a peer that is not a UDP session.
func addrKey(a transport.Addr) (key string, ok bool) {
	if _, inner, isMulti := transport.SplitMultiAddr(a); isMulti {
		a = inner // a MultiConn member's peer
	}
	s, ok := strings.CutPrefix(string(a), udp.Prefix)
	if !ok {
		return "", false
	}
	s, _, _ = strings.Cut(s, "#")
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		return "", false
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String(), true
	}
	return ip.String(), true
}

// refuseFull is the Refuse a peer over its address's cap gets.
var refuseFull = (&codec.Refuse{Reason: codec.ReasonFull}).Append(nil)

// addrFull reports whether a new peer from a may not take a route: its
// address holds PeersPerAddr routes already. h.mu is held.
func (h *Multi[I]) addrFull(a transport.Addr) bool {
	if h.opts.PeersPerAddr <= 0 {
		return false
	}
	k, ok := addrKey(a)
	if !ok || h.perAddr[k] < h.opts.PeersPerAddr {
		return false
	}
	h.addrRefused++
	return true
}

// addRoute routes a's datagrams by rt. h.mu is held.
func (h *Multi[I]) addRoute(a transport.Addr, rt route[I]) {
	if _, known := h.byAddr[a]; !known && h.opts.PeersPerAddr > 0 {
		if k, ok := addrKey(a); ok {
			h.perAddr[k]++
		}
	}
	h.byAddr[a] = rt
}

// dropRoute forgets a's route. h.mu is held.
func (h *Multi[I]) dropRoute(a transport.Addr) {
	if _, known := h.byAddr[a]; !known {
		return
	}
	delete(h.byAddr, a)
	if h.opts.PeersPerAddr <= 0 {
		return
	}
	if k, ok := addrKey(a); ok {
		if h.perAddr[k]--; h.perAddr[k] <= 0 {
			delete(h.perAddr, k)
		}
	}
}
