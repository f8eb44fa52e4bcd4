package udp

import (
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// udpOpenAt completes the handshake for (from, cid) by handing the server a
// HELLO with a valid token, as its reader would, in the server's clock
// time; it returns the session opened, or nil. from is a loopback address
// nobody listens on: the server's answers stay on this machine.
func udpOpenAt(s *Server, from netip.AddrPort, cid uint64) *udpTestPeer {
	now := s.cfg.Clock.Now()
	e, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	ini := newNoiseInitiator(udpPrologue(cid), e)
	msg1 := ini.writeMessage1(nil, nil)
	tok := s.tokens.issue(nil, now, from, cid, msg1)
	s.handle(appendUDPHelloSealed(nil, cid, msg1, tok), from, nil)
	if s.hs != nil {
		s.hs.wait() // the handshake workers' answer
	}
	s.mu.RLock()
	sess := s.byPeer[udpPeerKey{from, cid}]
	s.mu.RUnlock()
	if sess == nil {
		return nil
	}
	f, err := parseUDPFrame(sess.welcome)
	if err != nil {
		panic(err)
	}
	_, _, send, recv, err := ini.readMessage2(nil, f.noise)
	if err != nil {
		panic(err)
	}
	seal, _ := newUDPKeys(send, recv)
	return &udpTestPeer{udpSession: sess, seal: seal}
}

// udpTestPeer is a session opened by udpOpenAt with the client's key.
type udpTestPeer struct {
	*udpSession
	seal *udpSealKey
}

// frame returns a sealed frame of plaintext type typ from the peer.
func (p *udpTestPeer) frame(typ byte, payload []byte) []byte {
	return p.seal.seal(nil, typ-udpData+udpSealedData, p.sid, payload)
}

func udpTestFrom(ip string, port uint16) netip.AddrPort {
	return netip.AddrPortFrom(netip.MustParseAddr(ip), port)
}

func udpAlive(s *Server, p *udpTestPeer) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return p != nil && s.byID[p.sid] == p.udpSession
}

func TestUDPUnprovenPerIPEvictsOldest(t *testing.T) {
	clk := newUDPFakeClock()
	s := udpListenTest(t, Config{Clock: clk, MaxUnprovenPerIP: 4})
	var first []*udpTestPeer
	for i := range 4 {
		first = append(first, udpOpenAt(s, udpTestFrom("127.0.0.2", uint16(1000+i)), uint64(i+1)))
		clk.Advance(time.Millisecond)
	}
	other := udpOpenAt(s, udpTestFrom("127.0.0.3", 1000), 99)
	if s.Unproven() != 5 || s.Sessions() != 5 {
		t.Fatalf("%d unproven of %d sessions, want 5 of 5", s.Unproven(), s.Sessions())
	}
	// Proving one takes it off the cap.
	s.Prove(first[3].addr)
	s.Prove(first[3].addr) // twice: no effect
	if s.Unproven() != 4 {
		t.Fatalf("%d unproven after a proof, want 4", s.Unproven())
	}
	for i := range 3 {
		udpOpenAt(s, udpTestFrom("127.0.0.2", uint16(2000+i)), uint64(100+i))
	}
	// 127.0.0.2 had 3 unproven; 3 more evicted its 2 oldest.
	if udpAlive(s, first[0]) || udpAlive(s, first[1]) || !udpAlive(s, first[2]) || !udpAlive(s, first[3]) || !udpAlive(s, other) {
		t.Fatalf("wrong sessions evicted: alive %v %v %v %v, other %v",
			udpAlive(s, first[0]), udpAlive(s, first[1]), udpAlive(s, first[2]), udpAlive(s, first[3]), udpAlive(s, other))
	}
	if st := s.Stats(); st.UnprovenEvicted != 2 || s.Unproven() != 5 || s.Sessions() != 6 {
		t.Fatalf("evicted %d, %d unproven of %d sessions, want 2, 5 of 6", st.UnprovenEvicted, s.Unproven(), s.Sessions())
	}
}

func TestUDPFullOfUnprovenAdmitsNewcomer(t *testing.T) {
	clk := newUDPFakeClock()
	s := udpListenTest(t, Config{Clock: clk, MaxSessions: 4, MaxUnprovenPerIP: 100})
	var held []*udpTestPeer
	for i := range 4 {
		held = append(held, udpOpenAt(s, udpTestFrom("127.0.0.2", uint16(1000+i)), uint64(i+1)))
		clk.Advance(time.Millisecond)
	}
	newcomer := udpOpenAt(s, udpTestFrom("127.0.0.4", 1000), 50)
	if newcomer == nil || udpAlive(s, held[0]) || !udpAlive(s, held[1]) || s.Sessions() != 4 {
		t.Fatalf("newcomer %v, oldest alive %v, %d sessions", newcomer != nil, udpAlive(s, held[0]), s.Sessions())
	}
	// All proven: a new one is refused.
	for _, sess := range append(held[1:], newcomer) {
		s.Prove(sess.addr)
	}
	if udpOpenAt(s, udpTestFrom("127.0.0.5", 1000), 60) != nil {
		t.Fatal("a full server of proven sessions admitted another")
	}
	if st := s.Stats(); st.Refused != 1 || st.UnprovenEvicted != 1 || s.Unproven() != 0 {
		t.Fatalf("refused %d evicted %d unproven %d", st.Refused, st.UnprovenEvicted, s.Unproven())
	}
}

func TestUDPUnprovenReaped(t *testing.T) {
	clk := newUDPFakeClock()
	s := udpListenTest(t, Config{Clock: clk, UnprovenTimeout: time.Second, IdleTimeout: 10 * time.Second})
	idler := udpOpenAt(s, udpTestFrom("127.0.0.2", 1000), 1)
	player := udpOpenAt(s, udpTestFrom("127.0.0.2", 1001), 2)
	// A DATA frame proves a session by default; PINGs never do.
	s.handle(player.frame(udpData, []byte("hello")), player.from, nil)
	for range 8 {
		clk.Advance(200 * time.Millisecond)
		s.handle(idler.frame(udpPing, nil), idler.from, nil)
		s.handle(player.frame(udpPing, nil), player.from, nil)
	}
	if udpAlive(s, idler) || !udpAlive(s, player) {
		t.Fatalf("after 1.6 s: pinging unproven alive %v, proven alive %v", udpAlive(s, idler), udpAlive(s, player))
	}
	if st := s.Stats(); st.UnprovenReaped != 1 || st.EndedIdle != 0 {
		t.Fatalf("reaped %d, idle %d", st.UnprovenReaped, st.EndedIdle)
	}
}

func TestUDPProveExplicitly(t *testing.T) {
	clk := newUDPFakeClock()
	s := udpListenTest(t, Config{Clock: clk, ProveExplicitly: true})
	sess := udpOpenAt(s, udpTestFrom("127.0.0.2", 1000), 1)
	s.handle(sess.frame(udpData, []byte("not a match hello")), sess.from, nil)
	if s.Unproven() != 1 {
		t.Fatal("DATA proved a session with ProveExplicitly")
	}
	m, err := transport.NewMulti(s)
	if err != nil {
		t.Fatal(err)
	}
	m.Prove(transport.MultiAddr(0, sess.addr))
	m.Prove("garbage")
	if s.Unproven() != 0 {
		t.Fatal("MultiConn.Prove did not reach its member")
	}
}

func TestUDPHandshakeRate(t *testing.T) {
	clk := newUDPFakeClock()
	s := udpListenTest(t, Config{Clock: clk, HandshakeRate: 1, HandshakeBurst: 3, MaxUnprovenPerIP: 100})
	for i := range 3 {
		if udpOpenAt(s, udpTestFrom("127.0.0.2", uint16(1000+i)), uint64(i+1)) == nil {
			t.Fatalf("session %d of the burst refused", i)
		}
	}
	if udpOpenAt(s, udpTestFrom("127.0.0.2", 1100), 10) != nil || s.Stats().Throttled != 1 {
		t.Fatalf("a fourth session within the second opened (throttled %d)", s.Stats().Throttled)
	}
	if udpOpenAt(s, udpTestFrom("127.0.0.3", 1000), 11) == nil {
		t.Fatal("another address was throttled")
	}
	clk.Advance(time.Second)
	if udpOpenAt(s, udpTestFrom("127.0.0.2", 1101), 12) == nil {
		t.Fatal("no session a second later")
	}
	// IPv6 addresses share their /64's bucket.
	for i := range 3 {
		udpOpenAt(s, udpTestFrom(fmt.Sprintf("2001:db8::%d", i+1), 1000), uint64(20+i))
	}
	if udpOpenAt(s, udpTestFrom("2001:db8::ff", 1000), 30) != nil {
		t.Fatal("a fourth address of one /64 opened a session")
	}
	if udpOpenAt(s, udpTestFrom("2001:db8:0:1::1", 1000), 31) == nil {
		t.Fatal("another /64 was throttled")
	}
	// A bounded table: beyond it only refilled buckets make way.
	r := newUDPRate(1, 1)
	r.max = 2
	now := clk.Now()
	a, b, c := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3")
	if !r.allow(a, now) || !r.allow(b, now) || r.allow(c, now) {
		t.Fatal("table bound")
	}
	if !r.allow(c, now.Add(2*time.Second)) || len(r.buckets) > 2 {
		t.Fatalf("refilled buckets not forgotten: %d", len(r.buckets))
	}
	if newUDPRate(-1, 0).allow(a, now) != true {
		t.Fatal("a negative rate limits")
	}
}
