package udp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/transport"
)

func TestUDPReplayWindow(t *testing.T) {
	var w udpReplay
	take := func(n uint64) bool {
		if !w.fresh(n) {
			return false
		}
		w.take(n)
		return true
	}
	for _, n := range []uint64{0, 1, 5, 3, 2, 4} { // reordered: all taken once
		if !take(n) {
			t.Fatalf("%d refused", n)
		}
	}
	for n := range uint64(6) {
		if take(n) {
			t.Fatalf("%d taken twice", n)
		}
	}
	if !take(5 + udpReplayWindow) { // a jump: 5 falls out, 6 is the oldest kept
		t.Fatal("jump refused")
	}
	if take(5) || !take(6) || take(6) {
		t.Fatal("window edge")
	}
	if !take(10*udpReplayWindow) || take(10*udpReplayWindow) || take(9*udpReplayWindow) || !take(10*udpReplayWindow-1) {
		t.Fatal("long jump")
	}
	// Counters skipped by a short jump stay takeable once.
	if !take(10*udpReplayWindow+3) || !take(10*udpReplayWindow+1) || take(10*udpReplayWindow+1) {
		t.Fatal("skipped counters")
	}
}

func TestUDPSealOpen(t *testing.T) {
	send, _ := newUDPKeys([32]byte{1}, [32]byte{2})
	_, recv := newUDPKeys([32]byte{2}, [32]byte{1})
	_, stranger := newUDPKeys([32]byte{2}, [32]byte{3})
	open := func(k *udpOpenKey, b []byte) ([]byte, error) {
		f, err := parseUDPFrame(bytes.Clone(b))
		if err != nil {
			return nil, err
		}
		return k.open(&f)
	}
	b := send.seal(nil, udpSealedData, 9, []byte("payload"))
	if len(b) != udpSealedOverhead+len("payload") {
		t.Fatalf("%d bytes", len(b))
	}
	if _, err := open(stranger, b); !errors.Is(err, ErrMalformed) {
		t.Fatalf("another key: %v", err)
	}
	for i := range b { // every flipped bit of header, body or tag
		bad := bytes.Clone(b)
		bad[i] ^= 0x10
		if bad[0] < udpSealedData || bad[0] > udpSealedPong {
			continue // no longer a sealed frame: the parser drops it
		}
		if p, err := open(recv, bad); err == nil {
			t.Fatalf("byte %d flipped opened: %q", i, p)
		}
	}
	if p, err := open(recv, b); err != nil || string(p) != "payload" {
		t.Fatalf("genuine: %q %v", p, err)
	}
	if _, err := open(recv, b); !errors.Is(err, ErrReplayed) {
		t.Fatalf("replay: %v", err)
	}
	// A frame's type is authenticated: a DATA cannot become a BYE.
	bye := send.seal(nil, udpSealedBye, 9, nil)
	asPing := bytes.Clone(bye)
	asPing[0] = udpSealedPing
	if _, err := open(recv, asPing); !errors.Is(err, ErrMalformed) {
		t.Fatalf("retyped: %v", err)
	}
	if _, err := open(recv, bye); err != nil {
		t.Fatalf("bye: %v", err)
	}
}

// udpTestServer is a server fed directly (handle) in made-up time, with
// one open session from a made-up address.
func udpTestServer(t *testing.T, cfg Config) (*Server, *udpTestPeer) {
	t.Helper()
	cfg.Clock = newUDPFakeClock()
	s := udpListenTest(t, cfg)
	p := udpOpenAt(s, udpTestFrom("127.0.0.2", 1000), 1)
	if p == nil {
		t.Fatal("no session")
	}
	return s, p
}

func udpQueued(s *Server) []string {
	var out []string
	buf := make([]byte, transport.MaxDatagram)
	for {
		n, _, ok := s.q.pop(buf)
		if !ok {
			return out
		}
		out = append(out, string(buf[:n]))
	}
}

// TestUDPSealedSessionHoldsOnPath plays an on-path attacker that sees every
// datagram of a session and sends from the player's own address: forged
// frames, replays, a retyped or plaintext BYE, and a HELLO repeated with
// its own key all change nothing; only the player's own frames count.
func TestUDPSealedSessionHoldsOnPath(t *testing.T) {
	s, p := udpTestServer(t, Config{})
	mitm, _ := newUDPKeys([32]byte{9}, [32]byte{9})
	genuine := p.frame(udpData, []byte("input 1"))
	s.handle(bytes.Clone(genuine), p.from, nil)
	bye := p.frame(udpBye, nil)
	forgedBye := bytes.Clone(bye)
	forgedBye[len(forgedBye)-1] ^= 1
	for _, b := range [][]byte{
		bytes.Clone(genuine), // replayed
		// Counter 0 is taken: dropped as a replay before it is opened.
		mitm.seal(nil, udpSealedData, p.sid, []byte("forged input")),
		mitm.seal(nil, udpSealedBye, p.sid, nil),
		forgedBye,
		appendUDPShort(nil, udpBye, p.sid, nil),                  // plaintext
		appendUDPShort(nil, udpData, p.sid, []byte("plaintext")), // plaintext
	} {
		s.handle(b, p.from, nil)
	}
	st := s.Stats()
	if got := udpQueued(s); len(got) != 1 || got[0] != "input 1" {
		t.Fatalf("queued %q", got)
	}
	if !udpAlive(s, p) || st.Replayed != 2 || st.BadSeal != 2 || st.Malformed != 2 {
		t.Fatalf("alive %v, stats %+v", udpAlive(s, p), st)
	}
	// The HELLO again with the attacker's key, from the player's address
	// and with a token for it: no new session, no new keys.
	e := udpTestEphemeral(t)
	tok := s.tokens.issue(nil, s.cfg.Clock.Now(), p.from, p.cid, e)
	s.handle(appendUDPHelloSealed(nil, p.cid, e, tok), p.from, nil)
	if s.Sessions() != 1 || s.Stats().BadToken != 1 {
		t.Fatalf("%d sessions, stats %+v", s.Sessions(), s.Stats())
	}
	// The player's own BYE ends it.
	s.handle(bye, p.from, nil)
	if udpAlive(s, p) || s.Stats().EndedBye != 1 {
		t.Fatal("the player's own bye did not end the session")
	}
}

// TestUDPServerKeyPinned: a client that pins the server's key connects; one
// that pins another is refused with ErrServerKey; VerifyServerKey sees the
// key and can refuse it.
func TestUDPServerKeyPinned(t *testing.T) {
	key, err := GenerateStaticKey()
	if err != nil {
		t.Fatal(err)
	}
	s := udpListenTest(t, Config{StaticKey: key})
	if s.PublicKey() != key.Public() {
		t.Fatal("PublicKey is not the configured key's")
	}
	var seen PublicKey
	c := udpDialTest(t, s, Config{ServerKey: key.Public(), VerifyServerKey: func(k PublicKey) error { seen = k; return nil }})
	if c.ServerKey() != key.Public() || seen != key.Public() {
		t.Fatalf("client saw %s / %s", c.ServerKey(), seen)
	}
	c.Send(c.RemoteAddr(), []byte("pinned"))
	if got, _ := udpRecvWait(t, s); string(got) != "pinned" {
		t.Fatalf("got %q", got)
	}
	other, _ := GenerateStaticKey()
	if _, err := Dial(s.UDPAddr().String(), Config{ServerKey: other.Public()}); !errors.Is(err, ErrServerKey) {
		t.Fatalf("wrong pin: %v", err)
	}
	refuse := errors.New("not in known servers")
	if _, err := Dial(s.UDPAddr().String(), Config{VerifyServerKey: func(PublicKey) error { return refuse }}); !errors.Is(err, refuse) {
		t.Fatalf("VerifyServerKey error: %v", err)
	}
}

// TestUDPPlaintext: both ends in version 1 work; a mismatch is refused for
// its protocol version, both ways.
func TestUDPPlaintext(t *testing.T) {
	plain := udpListenTest(t, Config{Plaintext: true})
	if !plain.PublicKey().IsZero() {
		t.Fatal("a plaintext server has a key")
	}
	c := udpDialTest(t, plain, Config{Plaintext: true})
	c.Send(c.RemoteAddr(), []byte("clear"))
	if got, _ := udpRecvWait(t, plain); string(got) != "clear" {
		t.Fatalf("got %q", got)
	}
	if _, err := Dial(plain.UDPAddr().String(), Config{}); !errors.Is(err, ErrRefused) {
		t.Fatalf("sealed client, plaintext server: %v", err)
	}
	sealed := udpListenTest(t, Config{})
	if _, err := Dial(sealed.UDPAddr().String(), Config{Plaintext: true}); !errors.Is(err, ErrRefused) {
		t.Fatalf("plaintext client, sealed server: %v", err)
	}
}

// TestUDPSealedOverhead: a sealed DATA frame is the payload plus 33 bytes,
// 24 more than a plaintext one.
func TestUDPSealedOverhead(t *testing.T) {
	s, p := udpTestServer(t, Config{})
	for _, n := range []int{0, 20, transport.MaxDatagram} {
		b := p.frame(udpData, make([]byte, n))
		if len(b)-n != udpSealedOverhead || udpSealedOverhead-udpDataOverhead != 24 {
			t.Fatalf("%d-byte payload: %d bytes", n, len(b))
		}
		s.handle(b, p.from, nil)
	}
	if got := udpQueued(s); len(got) != 3 || len(got[2]) != transport.MaxDatagram {
		t.Fatalf("queued %d", len(got))
	}
}

// FuzzUDPSealedOpen feeds a server with one sealed session arbitrary
// datagrams from the session's own address (the on-path attacker's
// position): none may panic, and none but frames sealed under the
// session's key may reach the queue or end the session.
func FuzzUDPSealedOpen(f *testing.F) {
	testutil.SkipSockets(f)
	cfg := Config{Clock: newUDPFakeClock(), IdleTimeout: time.Hour, UnprovenTimeout: time.Hour}
	s, err := Listen("127.0.0.1:0", cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	p := udpOpenAt(s, udpTestFrom("127.0.0.2", 1000), 1)
	f.Add(udpTestSealed(udpSealedData, 1, []byte("x")))
	f.Add(udpTestSealed(udpSealedBye, 1, nil))
	f.Add(appendUDPShort(nil, udpBye, 1, nil))
	f.Add([]byte{udpSealedPing})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= 9 && b[0] >= udpSealedData && b[0] <= udpSealedPong {
			// Address the fuzzer's frames to the session, so that they
			// reach the opener.
			binary.BigEndian.PutUint64(b[1:9], p.sid)
		}
		s.handle(b, p.from, nil)
		if got := udpQueued(s); len(got) != 0 || !udpAlive(s, p) {
			t.Fatalf("forged %x: queued %q, alive %v", b, got, udpAlive(s, p))
		}
	})
}

// TestUDPReplayWindowTop: a frame of counter 2^64-1 (a key holder's own
// forgery; no sealer sends it) is refused and leaves the window as it was:
// it once wrapped top to 0 and an older counter was then taken again
// (issue 30 item 14).
func TestUDPReplayWindowTop(t *testing.T) {
	var w udpReplay
	for n := uint64(0); n < 10; n++ {
		w.take(n)
	}
	if w.fresh(math.MaxUint64) {
		t.Fatal("counter 2^64-1 fresh")
	}
	for n := uint64(0); n < 10; n++ {
		if w.fresh(n) {
			t.Fatalf("counter %d fresh again", n)
		}
	}
	if !w.fresh(10) || !w.fresh(math.MaxUint64-1) {
		t.Fatal("a newer counter refused")
	}
}
