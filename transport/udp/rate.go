package udp

import (
	"net/netip"
	"sync"
	"time"
)

// udpRate is a token bucket per source address for the sessions a server
// opens (each a handshake: two X25519 agreements and a new key in version
// 2). It is consulted only for HELLOs whose retry token proved the
// address, so a spoofer cannot fill it; IPv6 addresses count per /64.
// Safe for concurrent use.
type udpRate struct {
	rate, burst float64 // tokens a second, bucket size; rate 0: no limit
	max         int     // most addresses tracked

	mu      sync.Mutex
	buckets map[netip.Addr]*udpBucket
}

type udpBucket struct {
	tokens float64
	last   int64 // unix nanos of the last refill
}

// refill adds the tokens rate a second brings from the last refill to t
// (unix nanos), up to burst.
func (b *udpBucket) refill(t int64, rate, burst float64) {
	if dt := t - b.last; dt > 0 {
		b.tokens = min(burst, b.tokens+rate*float64(dt)/float64(time.Second))
		b.last = t
	}
}

// udpRateAddrs bounds the addresses a server tracks: beyond it, buckets
// that refilled are forgotten, and while none has, new addresses are
// refused (a flood from that many proven addresses is a botnet).
const udpRateAddrs = 1 << 14

func newUDPRate(rate float64, burst int) *udpRate {
	return &udpRate{rate: rate, burst: float64(max(burst, 1)), max: udpRateAddrs, buckets: map[netip.Addr]*udpBucket{}}
}

// udpRateKey is the address a bucket is kept for: the IPv4 address, or
// an IPv6 address's /64.
func udpRateKey(ip netip.Addr) netip.Addr {
	if ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(64)
		return p.Addr()
	}
	return ip.Unmap()
}

// allow takes a token from ip's bucket at now, if it has one.
func (r *udpRate) allow(ip netip.Addr, now time.Time) bool {
	if r.rate <= 0 {
		return true
	}
	t := now.UnixNano()
	key := udpRateKey(ip)
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.buckets[key]
	if b == nil {
		if len(r.buckets) >= r.max && !r.pruneLocked(t) {
			return false
		}
		b = &udpBucket{tokens: r.burst, last: t}
		r.buckets[key] = b
	}
	b.refill(t, r.rate, r.burst)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// pruneLocked forgets the buckets that have refilled by t; it reports
// whether any went.
func (r *udpRate) pruneLocked(t int64) bool {
	n := len(r.buckets)
	for k, b := range r.buckets {
		if b.tokens+r.rate*float64(t-b.last)/float64(time.Second) >= r.burst {
			delete(r.buckets, k)
		}
	}
	return len(r.buckets) < n
}
