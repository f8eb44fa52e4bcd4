package udp

import (
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// TestUDPHandshakeQueueRoundRobin: the handshake queue serves the
// addresses that wait in turn, one job each, so a newcomer behind a
// flood from many addresses waits one round, not the flood (and none if
// it comes in the new lane: its address holds no unproven session); an
// address queues handshakeQueuePerIP jobs at most (an IPv6 /64 counts as
// one; a further job takes the place of its oldest), a session's job
// once, and the queue handshakeQueue in all.
func TestUDPHandshakeQueueRoundRobin(t *testing.T) {
	h := newUDPHandshakes(1)
	job := func(ip string, cid uint64) udpHandshakeJob {
		return udpHandshakeJob{from: udpTestFrom(ip, 1000), cid: cid}
	}
	cid := uint64(0)
	for range 10 { // a flood: 3 addresses send as fast as they can
		for a := range 3 {
			cid++
			h.add(job(fmt.Sprintf("127.0.1.%d", a+1), cid), laneRest)
		}
	}
	if h.waiting != 3*handshakeQueuePerIP {
		t.Fatalf("%d jobs waiting, want %d per address", h.waiting, handshakeQueuePerIP)
	}
	if !h.add(job("127.0.2.1", 1000), laneRest) || h.add(job("127.0.2.1", 1000), laneRest) {
		t.Fatal("a newcomer's job not queued, or queued twice")
	}
	if !h.add(job("2001:db8::1", 1), laneRest) || !h.add(job("2001:db8::2", 2), laneRest) || !h.add(job("2001:db8::3", 3), laneRest) ||
		len(h.byIP[udpRateKey(netip.MustParseAddr("2001:db8::1"))].jobs) != handshakeQueuePerIP || h.pending(udpPeerKey{udpTestFrom("2001:db8::1", 1000), 1}) {
		t.Fatal("an IPv6 /64 is not one address of the queue, or its oldest job was not replaced")
	}
	if !h.add(job("127.0.3.1", 1), laneNew) || !h.add(job("127.0.3.1", 2), laneNew) {
		t.Fatal("a first-class job not queued")
	}
	var order []string
	for {
		j, ok, _ := h.next(time.Time{})
		if !ok {
			break
		}
		order = append(order, j.from.Addr().String())
		h.done(j)
	}
	want := []string{"127.0.3.1", "127.0.1.1", "127.0.1.2", "127.0.1.3", "127.0.2.1", "2001:db8::2",
		"127.0.3.1", "127.0.1.1", "127.0.1.2", "127.0.1.3", "2001:db8::3"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("served %v, want %v", order, want)
	}
	for i := range handshakeQueue + 10 {
		h.add(udpHandshakeJob{from: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 1), cid: 1}, laneRest)
	}
	if h.waiting != handshakeQueue || len(h.busy) != handshakeQueue {
		t.Fatalf("%d jobs waiting (%d busy), want the bound %d", h.waiting, len(h.busy), handshakeQueue)
	}
}

// udpFloodHello returns a proven HELLO from (from, cid) with the
// client's Noise message e (an attacker sends the same e every time: it
// does no crypto of its own).
func udpFloodHello(s *Server, from netip.AddrPort, cid uint64, e []byte) []byte {
	tok := s.tokens.issue(nil, s.cfg.Clock.Now(), from, cid, e)
	return appendUDPHelloSealed(nil, cid, e, tok)
}

// udpFloodRound is one round of the flood: udpFloodHellos, then 10 ms of
// made-up time.
func udpFloodRound(s *Server, clk *udpFakeClock, cid *uint64, e []byte) {
	udpFloodHellos(s, cid, e)
	clk.Advance(10 * time.Millisecond)
}

// udpFloodHellos hands s a HELLO of a new session from each of 250
// addresses (127.0.1.x, connection ids from *cid on) with the attacker's
// one reused ephemeral key e, and waits for s's workers, if any.
func udpFloodHellos(s *Server, cid *uint64, e []byte) {
	for a := range 250 {
		*cid++
		from := udpTestFrom(fmt.Sprintf("127.0.1.%d", a+1), uint16(2000+*cid%1000))
		s.handle(udpFloodHello(s, from, *cid, e), from, nil)
	}
	if s.hs != nil {
		s.hs.wait()
	}
}

// TestUDPHandshakeFloodAdmitsPlayers is issue 30's item 4 in made-up time
// (no socket is read: the test hands the server's receive path the
// datagrams): 250 loopback addresses (127.0.1.x) finish handshakes with
// one reused ephemeral key and never send a sealed frame, filling a
// 64-session server (250 handshakes each time) between each of 6 players' (from
// 127.0.2.x) handshake and the match's proof of its session. Each player
// sends its first DATA at once, as a client does; all 6 sessions live
// until proven, while the flood's are evicted. (Before, the oldest
// unproven session went first: the flood evicted every player.)
func TestUDPHandshakeFloodAdmitsPlayers(t *testing.T) {
	clk := newUDPFakeClock()
	// No total budget: the flood must fill the table 4 times over (the
	// budget's own test is TestUDPHandshakeTotalBudget).
	s := udpListenTest(t, Config{Clock: clk, MaxSessions: 64, ProveExplicitly: true, HandshakeWorkers: 2, HandshakeTotalRate: -1})
	ae, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	attackE := newNoiseInitiator(udpPrologue(1), ae).writeMessage1(nil, nil)
	cid := uint64(1000)
	flood := func() { udpFloodRound(s, clk, &cid, attackE) }
	admitted := 0
	flood()
	for p := range 6 {
		player := udpOpenAt(s, udpTestFrom(fmt.Sprintf("127.0.2.%d", p+1), 5000), uint64(p+1))
		if player == nil {
			t.Fatalf("player %d: no session", p)
		}
		s.handle(player.frame(udpData, []byte("the match's hello")), player.from, nil)
		flood()
		if udpAlive(s, player) {
			admitted++
			s.Prove(player.addr)
		}
	}
	st := s.Stats()
	t.Logf("%d of 6 players proven; %d sessions opened, %d unproven evicted, %d hellos throttled, %d dropped by the handshake queue",
		admitted, st.Opened, st.UnprovenEvicted, st.Throttled, st.HandshakesDropped)
	if admitted < 6 {
		t.Errorf("%d of 6 players' sessions lived until their proof, want 6", admitted)
	}
	if st.Opened < 7*250 || st.UnprovenEvicted < st.Opened-64 {
		t.Errorf("the flood opened %d sessions and %d were evicted: not the flood the test means", st.Opened, st.UnprovenEvicted)
	}
}

// TestUDPHandshakeTotalBudget is issue 30's item 4 once more, in made-up
// time: 250 addresses (127.0.1.x) each send a proven HELLO of a new
// session every 10 ms for 2 s or so, one reused ephemeral key, within their
// own per-address rate. With a total budget of 100 handshakes a second
// (burst 20) the server does at most 20 + 100 a second of them, whatever the
// flood brings (before, it did every one the per-address rates let
// through: 250 × 200 in the first second alone, a worker's whole core);
// 6 new players (127.0.2.x) joining meanwhile each get their session at
// the budget's next token (within 30 ms): their address holds no
// unproven session, so their HELLO goes first.
func TestUDPHandshakeTotalBudget(t *testing.T) {
	clk := newUDPFakeClock()
	s := udpListenTest(t, Config{Clock: clk, ProveExplicitly: true, HandshakeWorkers: 2,
		HandshakeTotalRate: 100, HandshakeTotalBurst: 20})
	ae, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	attackE := newNoiseInitiator(udpPrologue(1), ae).writeMessage1(nil, nil)
	cid := uint64(1000)
	step := func() {
		udpFloodRound(s, clk, &cid, attackE)
		s.hs.poke()
		s.hs.wait()
	}
	joined, start := 0, clk.Now()
	for i := range 200 {
		if i%30 != 15 || i > 180 {
			step()
			continue
		}
		p := i / 30
		from := udpTestFrom(fmt.Sprintf("127.0.2.%d", p+1), 5000)
		e, err := ecdh.X25519().GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		msg1 := newNoiseInitiator(udpPrologue(uint64(p+1)), e).writeMessage1(nil, nil)
		s.handle(appendUDPHelloSealed(nil, uint64(p+1), msg1, s.tokens.issue(nil, clk.Now(), from, uint64(p+1), msg1)), from, nil)
		for range 3 {
			step()
		}
		s.mu.RLock()
		ok := s.byPeer[udpPeerKey{from, uint64(p + 1)}] != nil
		s.mu.RUnlock()
		if ok {
			joined++
		}
	}
	st, secs := s.Stats(), clk.Now().Sub(start).Seconds()
	t.Logf("%.2f s of flood: %d sessions opened (%d of them players'), %d hellos dropped by the handshake queue, %d throttled per address",
		secs, st.Opened, joined, st.HandshakesDropped, st.Throttled)
	if joined < 6 {
		t.Errorf("%d of 6 new players got a session within 30 ms, want 6", joined)
	}
	if most := uint64(20 + 100*secs + 1); st.Opened > most {
		t.Errorf("%d handshakes in %.2f s of made-up time, want at most %d (the total budget)", st.Opened, secs, most)
	}
	if st.HandshakesDropped == 0 {
		t.Error("no HELLO dropped: not the flood the test means")
	}
}

// TestUDPHandshakeTotalBudgetOnReader is TestUDPHandshakeTotalBudget
// with the handshakes on the reader (HandshakeWorkers < 0), in made-up
// time: 250 addresses send a proven HELLO of a new session every 10 ms,
// one reused ephemeral key, for 2 s once each holds an unproven session
// (the burst of 250 opens one each in the first round). The server does
// at most 100 handshakes a second of them
// (before, the budget applied only with workers: the reader did every
// one the per-address rates let through, 250 × 200 in the first second);
// 6 new players (127.0.2.x) whose HELLO comes right after the flood's
// have spent the budget each get their session at once: the flood's
// HELLOs leave the last token to a newcomer's.
func TestUDPHandshakeTotalBudgetOnReader(t *testing.T) {
	clk := newUDPFakeClock()
	s := udpListenTest(t, Config{Clock: clk, ProveExplicitly: true, HandshakeWorkers: -1,
		HandshakeTotalRate: 100, HandshakeTotalBurst: 250, UnprovenTimeout: time.Minute, IdleTimeout: time.Minute})
	if s.hs != nil {
		t.Fatal("handshake workers with HandshakeWorkers -1")
	}
	ae, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	attackE := newNoiseInitiator(udpPrologue(1), ae).writeMessage1(nil, nil)
	cid := uint64(1000)
	udpFloodRound(s, clk, &cid, attackE) // each flood address holds a session
	joined, start, opened := 0, clk.Now(), s.Stats().Opened
	for i := range 200 {
		if i%30 != 15 || i > 180 {
			udpFloodRound(s, clk, &cid, attackE)
			continue
		}
		udpFloodHellos(s, &cid, attackE) // the budget's tokens of this round taken
		p := uint64(i/30 + 1)
		if udpOpenAt(s, udpTestFrom(fmt.Sprintf("127.0.2.%d", p), 5000), p) != nil {
			joined++
		}
		clk.Advance(10 * time.Millisecond)
	}
	st, secs := s.Stats(), clk.Now().Sub(start).Seconds()
	t.Logf("%d flood sessions first, then %.2f s of flood: %d sessions opened (%d of them players'), %d hellos dropped for the budget, %d throttled per address",
		opened, secs, st.Opened-opened, joined, st.HandshakesDropped, st.Throttled)
	if opened != 250 {
		t.Fatalf("%d flood sessions after the first round, want 250", opened)
	}
	if joined < 6 {
		t.Errorf("%d of 6 new players got a session, want 6", joined)
	}
	if most := uint64(100*secs + 1); st.Opened-opened > most {
		t.Errorf("%d handshakes in %.2f s of made-up time, want at most %d (the total budget)", st.Opened-opened, secs, most)
	}
	if st.HandshakesDropped == 0 {
		t.Error("no HELLO dropped: not the flood the test means")
	}
}
