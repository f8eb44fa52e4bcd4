package udp

import (
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// udpTestDialer is a client's dial in made-up time: it sends its HELLO
// (a new connection id and key per dial, a new source port as a new
// process would have) every HandshakeRetry (250 ms) until the server
// opens its session, and gives up after HandshakeTimeout (5 s).
type udpTestDialer struct {
	t        *testing.T
	s        *Server
	ip       string
	cid      uint64
	e        []byte
	from     netip.AddrPort
	began    time.Time
	last     time.Time
	dialing  bool
	joined   int           // sessions opened
	worst    time.Duration // the longest from a dial's start to its session
	gaveUp   int           // dials that gave up
	onJoined func(now time.Time)
}

var udpTestDialerCID uint64 = 1 << 40

// dial starts a dial at now.
func (d *udpTestDialer) dial(now time.Time) {
	udpTestDialerCID++
	d.cid = udpTestDialerCID
	d.from = udpTestFrom(d.ip, uint16(5000+d.cid%1000))
	d.e = udpTestNoiseE(d.t, d.cid)
	d.began, d.dialing = now, true
	d.send(now)
}

func (d *udpTestDialer) send(now time.Time) {
	d.last = now
	d.s.handle(udpFloodHello(d.s, d.from, d.cid, d.e), d.from, nil)
}

// step repeats the HELLO or gives up, as due at now, and proves the
// session once it opened (the match admits the player).
func (d *udpTestDialer) step(now time.Time) {
	if !d.dialing {
		return
	}
	d.s.mu.RLock()
	sess := d.s.byPeer[udpPeerKey{d.from, d.cid}]
	d.s.mu.RUnlock()
	switch {
	case sess != nil:
		d.dialing = false
		d.joined++
		d.worst = max(d.worst, now.Sub(d.began))
		d.s.Prove(sess.addr)
		if d.onJoined != nil {
			d.onJoined(now)
		}
	case now.Sub(d.began) >= 5*time.Second:
		d.dialing = false
		d.gaveUp++
	case now.Sub(d.last) >= 250*time.Millisecond:
		d.send(now)
	}
}

// TestUDPHandshakeFreshAddressFlood is issue 43's item 2 in made-up time:
// never-seen addresses (10.x.y.z) send a proven HELLO of a new session
// each, 150 a second for 30 s (one reused ephemeral key, no cryptography
// on their side), against the default total budget of 100 handshakes a
// second. Meanwhile one player from a fresh address each time dials
// 3 times, and one who played before the flood (127.0.2.1) dials 3 times;
// after it, a player's address that dialed during the flood as well
// (127.0.3.1) and one never seen before (127.0.5.1) each join 6 times one
// after the other, playing 2 s each.
// Each dial gives up after 5 s, as Dial does. The player who played
// before goes first (the known lane: 3 of 3 at once), and after the flood
// every join takes a few seconds at most: 6 of 6 within the 30 s, no
// dial given up (before, a new address's HELLO went to the front of the
// queue, newest first, and the flood's stale ones took 40 s to drain).
//
// At 1,000 addresses a second for 10 s the same holds for the player
// who played before and for those after the flood; players from fresh
// addresses during it are served with the share budget/arrivals of
// each HELLO queued (logged, not asserted).
func TestUDPHandshakeFreshAddressFlood(t *testing.T) {
	udpFreshAddressFlood(t, 150, 30*time.Second)
	udpFreshAddressFlood(t, 1000, 10*time.Second)
}

// udpFreshAddressFlood is TestUDPHandshakeFreshAddressFlood at rate
// fresh addresses a second for floodFor.
func udpFreshAddressFlood(t *testing.T, rate int, floodFor time.Duration) {
	clk := newUDPFakeClock()
	s := udpListenTest(t, Config{Clock: clk, ProveExplicitly: true, HandshakeWorkers: 1})
	attackE := udpTestNoiseE(t, 1)
	fresh := 0
	newFresh := func() *udpTestDialer {
		fresh++
		return &udpTestDialer{t: t, s: s, ip: fmt.Sprintf("127.0.4.%d", fresh)}
	}
	known := &udpTestDialer{t: t, s: s, ip: "127.0.2.1"}
	after := &udpTestDialer{t: t, s: s, ip: "127.0.3.1"}
	newAfter := &udpTestDialer{t: t, s: s, ip: "127.0.5.1"} // never seen before the flood ends
	var freshDialers []*udpTestDialer
	known.dial(clk.Now()) // it plays before the flood
	s.hs.wait()
	known.step(clk.Now())
	if known.joined != 1 {
		t.Fatal("no session before the flood")
	}
	const step = 10 * time.Millisecond
	cid, sent := uint64(1000), 0
	start := clk.Now()
	var floodEnd time.Time
	afterJoins := map[*udpTestDialer]int{}
	for clk.Now().Sub(start) < floodFor+15*time.Second {
		now := clk.Now()
		elapsed := now.Sub(start)
		if elapsed < floodFor {
			for due := int(elapsed * time.Duration(rate) / time.Second); sent < due; sent++ {
				cid++
				n := uint32(sent + 1)
				from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(n >> 16), byte(n >> 8), byte(n)}), 2000)
				s.handle(udpFloodHello(s, from, cid, attackE), from, nil)
			}
			if elapsed%(3300*time.Millisecond) == time.Second {
				d := newFresh()
				freshDialers = append(freshDialers, d)
				d.dial(now)
				known.dial(now)
				after.dial(now)
			}
		} else if floodEnd.IsZero() {
			floodEnd = now
			after.joined, after.worst, after.gaveUp = 0, 0, 0
			after.dialing = false
		}
		for _, d := range []*udpTestDialer{after, newAfter} {
			if !floodEnd.IsZero() && !d.dialing && afterJoins[d] < 6 && (afterJoins[d] == 0 || now.Sub(d.last) >= 2*time.Second) {
				afterJoins[d]++
				d.dial(now)
			}
		}
		for _, d := range append(freshDialers, known, after, newAfter) {
			d.step(now)
		}
		s.hs.poke()
		s.hs.wait()
		clk.Advance(step)
	}
	freshJoined := 0
	for _, d := range freshDialers {
		freshJoined += d.joined
	}
	st := s.Stats()
	t.Logf("flood %d HELLOs from as many addresses in %v (%d a second); %d sessions opened, %d HELLOs dropped", sent, floodFor, rate, st.Opened, st.HandshakesDropped)
	t.Logf("during: fresh addresses %d of %d; known address %d of %d (worst %v); after: %d of 6 (worst %v, %d dials given up), from a new address %d of 6 (worst %v, %d given up)",
		freshJoined, len(freshDialers), known.joined-1, len(freshDialers), known.worst, after.joined, after.worst, after.gaveUp, newAfter.joined, newAfter.worst, newAfter.gaveUp)
	if known.joined-1 != len(freshDialers) || known.worst > time.Second {
		t.Errorf("the known address joined %d of %d during the flood (worst %v), want all within a second", known.joined-1, len(freshDialers), known.worst)
	}
	for _, d := range []*udpTestDialer{after, newAfter} {
		if d.joined != 6 || d.worst > 3*time.Second {
			t.Errorf("after the flood, %s joined %d of 6 (worst %v), want 6 within 3 s each", d.ip, d.joined, d.worst)
		}
	}
	if sent < rate*int(floodFor/time.Second-1) || st.HandshakesDropped == 0 {
		t.Errorf("%d HELLOs sent, %d dropped: not the flood the test means", sent, st.HandshakesDropped)
	}
}
