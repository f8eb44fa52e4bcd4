package udp

import (
	"net/netip"
	"time"
)

const (
	// handshakeKnownFor is how long an address that proved a session
	// stays known to the handshake queue (its known lane).
	handshakeKnownFor = 10 * time.Minute
	// handshakeKnownAddrs bounds the known addresses: beyond it, the
	// oldest are forgotten.
	handshakeKnownAddrs = 4096
	// handshakeKnownUnproven: a known address holding this many unproven
	// sessions waits as the others do (one that floods from where it
	// once played is no longer a player's).
	handshakeKnownUnproven = 4
	// handshakeNewcomerRate and handshakeNewcomerBurst bound the HELLOs
	// of new sessions an address may send a second and keep the known or
	// the new lane: a player's dial queues one every second or so (its
	// repeats while it waits are dropped), a flood's address as many as
	// its HandshakeRate lets through (it waits with the rest).
	handshakeNewcomerRate  = 2
	handshakeNewcomerBurst = 8
)

// udpKnown remembers the addresses (udpRateKey: an IPv6 address by its
// /64) that proved a session lately, with when (unix nanos). An attacker
// that does no cryptography never proves one: its HELLOs never reach
// the handshake queue's known lane. Guarded by the server's mu.
type udpKnown struct {
	at map[netip.Addr]int64
}

// add records that ip proved a session at t (unix nanos).
func (k *udpKnown) add(ip netip.Addr, t int64) {
	key := udpRateKey(ip)
	if k.at == nil {
		k.at = make(map[netip.Addr]int64)
	}
	if _, ok := k.at[key]; !ok && len(k.at) >= handshakeKnownAddrs {
		k.forget(t)
	}
	k.at[key] = max(k.at[key], t)
}

// forget drops the addresses known longer than handshakeKnownFor at t,
// or else the oldest quarter.
func (k *udpKnown) forget(t int64) {
	for ip, at := range k.at {
		if t-at > int64(handshakeKnownFor) {
			delete(k.at, ip)
		}
	}
	if len(k.at) < handshakeKnownAddrs {
		return
	}
	oldest := t
	for _, at := range k.at {
		oldest = min(oldest, at)
	}
	cut := oldest + (t-oldest)/4
	for ip, at := range k.at {
		if at <= cut {
			delete(k.at, ip)
		}
	}
	if len(k.at) >= handshakeKnownAddrs { // all of the same age
		for ip := range k.at {
			delete(k.at, ip)
			break
		}
	}
}

// has reports whether ip proved a session within handshakeKnownFor of t.
func (k *udpKnown) has(ip netip.Addr, t time.Time) bool {
	at, ok := k.at[udpRateKey(ip)]
	return ok && t.UnixNano()-at <= int64(handshakeKnownFor)
}

// handshakeLane is the lane of the handshake queue that a HELLO from
// ip waits in at now (handshake.go), taking a token of its newcomer
// rate if it is the known or the new lane. Called with s.mu held (read).
func (s *Server) handshakeLane(ip netip.Addr, now time.Time) udpLane {
	unproven := len(s.unproven.of(ip)) // IPv6: in its /64
	lane := laneRest
	switch {
	case unproven < handshakeKnownUnproven && s.known.has(ip, now):
		lane = laneKnown
	case unproven == 0:
		lane = laneNew
	}
	if lane != laneRest && !s.newcomers.allow(ip, now) {
		return laneRest
	}
	return lane
}
