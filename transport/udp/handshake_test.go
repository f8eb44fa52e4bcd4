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
// it comes first-class: its address holds no unproven session); an address
// queues handshakeQueuePerIP jobs at most (an IPv6 /64 counts as one),
// a session's job once, and the queue handshakeQueue in all.
func TestUDPHandshakeQueueRoundRobin(t *testing.T) {
	h := newUDPHandshakes(1)
	job := func(ip string, cid uint64) udpHandshakeJob {
		return udpHandshakeJob{from: udpTestFrom(ip, 1000), cid: cid}
	}
	cid := uint64(0)
	for range 10 { // a flood: 3 addresses send as fast as they can
		for a := range 3 {
			cid++
			h.add(job(fmt.Sprintf("127.0.1.%d", a+1), cid), false)
		}
	}
	if h.waiting != 3*handshakeQueuePerIP {
		t.Fatalf("%d jobs waiting, want %d per address", h.waiting, handshakeQueuePerIP)
	}
	if !h.add(job("127.0.2.1", 1000), false) || h.add(job("127.0.2.1", 1000), false) {
		t.Fatal("a newcomer's job not queued, or queued twice")
	}
	if !h.add(job("2001:db8::1", 1), false) || !h.add(job("2001:db8::2", 2), false) || h.add(job("2001:db8::3", 3), false) {
		t.Fatal("an IPv6 /64 is not one address of the queue")
	}
	if !h.add(job("127.0.3.1", 1), true) || !h.add(job("127.0.3.1", 2), true) {
		t.Fatal("a first-class job not queued")
	}
	var order []string
	for {
		j, ok := h.next()
		if !ok {
			break
		}
		order = append(order, j.from.Addr().String())
		h.done(j)
	}
	want := []string{"127.0.3.1", "127.0.1.1", "127.0.1.2", "127.0.1.3", "127.0.2.1", "2001:db8::1",
		"127.0.3.1", "127.0.1.1", "127.0.1.2", "127.0.1.3", "2001:db8::2"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("served %v, want %v", order, want)
	}
	for i := range handshakeQueue + 10 {
		h.add(udpHandshakeJob{from: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 1), cid: 1}, false)
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
	s := udpListenTest(t, Config{Clock: clk, MaxSessions: 64, ProveExplicitly: true, HandshakeWorkers: 2})
	ae, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	attackE := newNoiseInitiator(udpPrologue(1), ae).writeMessage1(nil, nil)
	cid := uint64(1000)
	flood := func() {
		for a := range 250 {
			cid++
			from := udpTestFrom(fmt.Sprintf("127.0.1.%d", a+1), uint16(2000+cid%1000))
			s.handle(udpFloodHello(s, from, cid, attackE), from, nil)
		}
		s.hs.wait()
		clk.Advance(10 * time.Millisecond)
	}
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
