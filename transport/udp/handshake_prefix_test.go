package udp

import (
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// TestUDPHandshakeIPv6PrefixFlood: a flood from one IPv6 /64 that
// sends each HELLO from another address within it is one address to
// the handshakes' newcomer check and to MaxUnprovenPerIP, as it is to
// the handshake rates and the queue. In made-up time, with the
// handshakes off the reader and on it, 2001:db8:1::/64 sends 5 proven
// HELLOs of new sessions every 10 ms for 2 s, each from a fresh address,
// one reused ephemeral key, against a total budget of 100 handshakes a
// second (burst 20); 6 new players, each from its own /64, send their
// HELLO right after a round of the flood's. Every player gets its
// session within 3 rounds (30 ms), and the /64 never holds more than
// MaxUnprovenPerIP (8) unproven sessions. (Before, both keyed the exact
// address: each of the flood's HELLOs was a newcomer's, which on the
// reader took the budget's last token before the players' (0 of 6
// served; with workers the queue, keyed by /64, still served 6 of 6),
// and the /64 held every session it opened: 232 with workers, 237 on
// the reader.)
func TestUDPHandshakeIPv6PrefixFlood(t *testing.T) {
	for _, workers := range []int{2, -1} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			udpIPv6PrefixFlood(t, workers)
		})
	}
}

// udpIPv6PrefixFlood is TestUDPHandshakeIPv6PrefixFlood with
// HandshakeWorkers workers.
func udpIPv6PrefixFlood(t *testing.T, workers int) {
	clk := newUDPFakeClock()
	s := udpListenTest(t, Config{Clock: clk, ProveExplicitly: true, HandshakeWorkers: workers,
		HandshakeTotalRate: 100, HandshakeTotalBurst: 20})
	flood := netip.MustParsePrefix("2001:db8:1::/64")
	attackE := udpTestNoiseE(t, 1)
	cid, held := uint64(1000), 0
	hellos := func() { // the flood's 5 HELLOs of a round, each from a fresh address
		for range 5 {
			cid++
			from := netip.AddrPortFrom(udpTestIPv6(flood, cid), 2000)
			s.handle(udpFloodHello(s, from, cid, attackE), from, nil)
		}
		if s.hs != nil {
			s.hs.wait()
		}
	}
	step := func() {
		hellos()
		clk.Advance(10 * time.Millisecond)
		if s.hs != nil {
			s.hs.poke()
			s.hs.wait()
		}
		held = max(held, udpUnprovenIn(s, flood))
	}
	joined, start := 0, clk.Now()
	for i := range 200 {
		if i%30 != 15 || i > 180 {
			step()
			continue
		}
		p := uint64(i/30 + 1)
		from := udpTestFrom(fmt.Sprintf("2001:db8:%d::1", p+1), 5000)
		hellos() // the budget's tokens of this round taken
		s.handle(udpFloodHello(s, from, p, udpTestNoiseE(t, p)), from, nil)
		clk.Advance(10 * time.Millisecond)
		for range 3 {
			step()
		}
		s.mu.RLock()
		ok := s.byPeer[udpPeerKey{from, p}] != nil
		s.mu.RUnlock()
		if ok {
			joined++
		}
	}
	st, secs := s.Stats(), clk.Now().Sub(start).Seconds()
	t.Logf("%.2f s of flood from one /64: %d sessions opened (%d of them players'), %d evicted, at most %d unproven in the /64, %d hellos dropped for the budget or the queue, %d throttled",
		secs, st.Opened, joined, st.UnprovenEvicted, held, st.HandshakesDropped, st.Throttled)
	if joined < 6 {
		t.Errorf("%d of 6 new players from other /64s got a session within 30 ms, want 6", joined)
	}
	if held > s.cfg.MaxUnprovenPerIP {
		t.Errorf("the flood's /64 held %d unproven sessions, want at most MaxUnprovenPerIP %d", held, s.cfg.MaxUnprovenPerIP)
	}
	if most := uint64(20 + 100*secs + 1); st.Opened > most {
		t.Errorf("%d handshakes in %.2f s of made-up time, want at most %d (the total budget)", st.Opened, secs, most)
	}
	if st.Opened < 50 || st.HandshakesDropped == 0 {
		t.Errorf("%d sessions opened, %d HELLOs dropped: not the flood the test means", st.Opened, st.HandshakesDropped)
	}
}

// udpTestNoiseE returns a client's first Noise message (its ephemeral
// key) for connection id cid.
func udpTestNoiseE(t *testing.T, cid uint64) []byte {
	t.Helper()
	e, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return newNoiseInitiator(udpPrologue(cid), e).writeMessage1(nil, nil)
}

// udpTestIPv6 returns the address n of the IPv6 /64 p.
func udpTestIPv6(p netip.Prefix, n uint64) netip.Addr {
	b := p.Addr().As16()
	for i := range 8 {
		b[15-i] = byte(n >> (8 * i))
	}
	return netip.AddrFrom16(b)
}

// udpUnprovenIn counts s's unproven sessions from addresses in p.
func udpUnprovenIn(s *Server, p netip.Prefix) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for sess := s.unproven.head; sess != nil; sess = sess.next {
		if p.Contains(sess.from.Addr()) {
			n++
		}
	}
	return n
}
