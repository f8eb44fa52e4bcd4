package udp

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/transport"
)

// udpFakeClock is a Clock that moves only when told to.
type udpFakeClock struct{ ns atomic.Int64 }

func newUDPFakeClock() *udpFakeClock {
	c := &udpFakeClock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *udpFakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *udpFakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// udpWaitFor waits until cond holds: the other side of a real socket works in
// its own goroutine. The bound is generous; it only keeps a broken test
// from hanging.
func udpWaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// udpRecvWait waits on c.Ready for the next datagram.
func udpRecvWait(t *testing.T, c transport.Conn) ([]byte, transport.Addr) {
	t.Helper()
	buf := make([]byte, transport.MaxDatagram)
	timeout := time.After(10 * time.Second)
	for {
		n, from, err := c.Recv(buf)
		if err == nil {
			return buf[:n], from
		}
		if !errors.Is(err, transport.ErrWouldBlock) {
			t.Fatalf("recv: %v", err)
		}
		select {
		case <-c.Ready():
		case <-timeout:
			t.Fatal("timed out waiting for a datagram")
		}
	}
}

// udpCheckNoReaders fails if any UDP reader goroutine is still running a
// few seconds on. Close returns once a reader has closed its done channel
// in a deferred call, so the goroutine may still be on its way out for a
// moment (CI under -race caught one there once).
func udpCheckNoReaders(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	running := func() string {
		stacks := string(buf[:runtime.Stack(buf, true)])
		for _, fn := range []string{"(*Server).readLoop", "(*Client).readLoop"} {
			if strings.Contains(stacks, fn) {
				return fn
			}
		}
		return ""
	}
	deadline := time.Now().Add(5 * time.Second)
	for fn := running(); fn != ""; fn = running() {
		if time.Now().After(deadline) {
			t.Fatalf("goroutine leak: %s still running", fn)
		}
		time.Sleep(time.Millisecond)
	}
}

func udpListenTest(t *testing.T, cfg Config) *Server {
	t.Helper()
	testutil.SkipSockets(t)
	s, err := Listen("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func udpDialTest(t *testing.T, s *Server, cfg Config) *Client {
	t.Helper()
	testutil.SkipSockets(t)
	c, err := Dial(s.UDPAddr().String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// udpRawSocket is a plain UDP socket aimed at the server, playing an attacker.
func udpRawSocket(t *testing.T, s *Server) *net.UDPConn {
	t.Helper()
	testutil.SkipSockets(t)
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(s.UDPAddr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestUDPHandshakeAndData(t *testing.T) {
	s := udpListenTest(t, Config{})
	c := udpDialTest(t, s, Config{})
	if c.RemoteAddr() != s.LocalAddr() || !strings.HasPrefix(string(c.LocalAddr()), "udp:127.0.0.1:") {
		t.Fatalf("addresses %s -> %s, server %s", c.LocalAddr(), c.RemoteAddr(), s.LocalAddr())
	}
	if err := c.Send(c.RemoteAddr(), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	got, peer := udpRecvWait(t, s)
	if string(got) != "hello" || !strings.HasSuffix(string(peer), "#1") {
		t.Fatalf("server got %q from %s", got, peer)
	}
	if ap, err := ParseAddr(peer); err != nil || "udp:"+ap.String() != string(c.LocalAddr()) {
		t.Fatalf("ParseAddr(%s) = %v, %v", peer, ap, err)
	}
	full := bytes.Repeat([]byte{0x5A}, transport.MaxDatagram)
	if err := s.Send(peer, full); err != nil {
		t.Fatal(err)
	}
	if got, from := udpRecvWait(t, c); !bytes.Equal(got, full) || from != s.LocalAddr() {
		t.Fatalf("client got %d bytes from %s", len(got), from)
	}
	// (Retries may exceed 1 if a HELLO was sent again on a slow machine.)
	if st := s.Stats(); st.Retries < 1 || st.Opened != 1 || s.Sessions() != 1 {
		t.Fatalf("server stats %+v, %d sessions", st, s.Sessions())
	}

	// Errors of Send.
	if err := c.Send("udp:127.0.0.1:1", []byte("x")); !errors.Is(err, transport.ErrUnknownPeer) {
		t.Fatalf("client send elsewhere: %v", err)
	}
	if err := c.Send(c.RemoteAddr(), make([]byte, transport.MaxDatagram+1)); !errors.Is(err, transport.ErrTooLarge) {
		t.Fatalf("oversize: %v", err)
	}
	if err := s.Send(peer+"0", []byte("x")); !errors.Is(err, transport.ErrUnknownPeer) {
		t.Fatalf("server send to a stranger: %v", err)
	}

	// BYE ends the session; a new dial from the same process is a new peer.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	udpWaitFor(t, "bye", func() bool { return s.Sessions() == 0 })
	if err := s.Send(peer, []byte("x")); !errors.Is(err, transport.ErrUnknownPeer) {
		t.Fatalf("send after bye: %v", err)
	}
	c2 := udpDialTest(t, s, Config{})
	c2.Send(c2.RemoteAddr(), []byte("again"))
	if _, peer2 := udpRecvWait(t, s); !strings.HasSuffix(string(peer2), "#2") {
		t.Fatalf("rejoin from %s", peer2)
	}

	// The server's Close says BYE to its peers.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("second close: %v", err)
	}
	udpWaitFor(t, "server bye", func() bool {
		_, _, err := c2.Recv(make([]byte, 10))
		return errors.Is(err, ErrPeerGone)
	})
	if err := c2.Send(c2.RemoteAddr(), []byte("x")); !errors.Is(err, ErrPeerGone) {
		t.Fatalf("send after server bye: %v", err)
	}
	c2.Close()
	udpCheckNoReaders(t)
}

// TestUDPSpoofedHello plays an attacker who sends HELLOs with a victim's
// source address: the victim socket gets only small RETRYs, no session
// opens, and tokens do not work from another address or when forged.
func TestUDPSpoofedHello(t *testing.T) {
	s := udpListenTest(t, Config{})
	e := udpTestEphemeral(t)
	victim := udpRawSocket(t, s)
	attacker := udpRawSocket(t, s)
	var sentToServer, gotFromServer int
	buf := make([]byte, 2048)
	send := func(c *net.UDPConn, b []byte) {
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		if c == victim {
			sentToServer += len(b)
		}
	}
	read := func() []byte {
		victim.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := victim.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		gotFromServer += n
		return buf[:n]
	}
	// probe sends a tokenless HELLO and reads the answer. The server reads
	// one socket in order, so anything it said to earlier datagrams from
	// the victim's address arrives first and would show as the answer.
	probe := func(cid uint64) {
		t.Helper()
		send(victim, appendUDPHelloSealed(nil, cid, e, nil))
		f, err := parseUDPFrame(read())
		if err != nil || f.typ != udpRetry || f.id != cid {
			t.Fatalf("probe %d answered with %+v, %v", cid, f, err)
		}
	}

	send(victim, appendUDPHelloSealed(nil, 1, e, nil))
	f, err := parseUDPFrame(read())
	if err != nil || f.typ != udpRetry || f.id != 1 {
		t.Fatalf("hello answered with %+v, %v", f, err)
	}
	token := append([]byte(nil), f.token...)

	// The victim's token, replayed from another address, opens nothing.
	send(attacker, appendUDPHelloSealed(nil, 1, e, token))
	udpWaitFor(t, "bad token counted", func() bool { return s.Stats().BadToken == 1 })
	// A forged token, a token for another connection id, a short HELLO:
	// no answer at all.
	forged := bytes.Clone(token)
	forged[len(forged)-1] ^= 1
	send(victim, appendUDPHelloSealed(nil, 1, e, forged))
	send(victim, appendUDPHelloSealed(nil, 2, e, token))
	send(victim, appendUDPHelloSealed(nil, 3, e, nil)[:100])
	probe(4)
	if st := s.Stats(); st.BadToken != 3 || st.Malformed != 1 || st.Opened != 0 || s.Sessions() != 0 {
		t.Fatalf("stats %+v, %d sessions", st, s.Sessions())
	}
	// Data for a connection id that no handshake made: dropped, no answer.
	send(victim, udpTestSealed(udpSealedData, 12345, []byte("x")))
	probe(5)
	if st := s.Stats(); st.UnknownConn != 1 || s.Sessions() != 0 {
		t.Fatalf("stats %+v", st)
	}
	if gotFromServer*10 > sentToServer {
		t.Fatalf("server sent %d bytes to an unverified address that sent %d", gotFromServer, sentToServer)
	}
	// The same token from the right address does open a session: the
	// check above failed for the right reasons.
	send(victim, appendUDPHelloSealed(nil, 1, e, token))
	if f, err := parseUDPFrame(read()); err != nil || f.typ != udpWelcome || s.Sessions() != 1 {
		t.Fatalf("genuine token answered with %+v, %v", f, err)
	}
}

// udpTestEphemeral returns a client's handshake message (its public
// ephemeral key).
func udpTestEphemeral(t *testing.T) []byte {
	t.Helper()
	e, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return e.PublicKey().Bytes()
}

func TestUDPStaleToken(t *testing.T) {
	clk := newUDPFakeClock()
	s := udpListenTest(t, Config{Clock: clk, TokenLifetime: time.Second})
	raw := udpRawSocket(t, s)
	e := udpTestEphemeral(t)
	buf := make([]byte, 2048)
	ask := func(token []byte) udpFrame {
		raw.Write(appendUDPHelloSealed(nil, 1, e, token))
		raw.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := raw.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parseUDPFrame(buf[:n])
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	token := bytes.Clone(ask(nil).token)
	clk.Advance(2 * time.Second)
	if f := ask(token); f.typ != udpRetry || bytes.Equal(f.token, token) {
		t.Fatalf("stale token answered with %+v", f)
	}
	if s.Sessions() != 0 || s.Stats().BadToken != 1 {
		t.Fatalf("stale token: %d sessions, stats %+v", s.Sessions(), s.Stats())
	}
}

func TestUDPIdleTimeout(t *testing.T) {
	clk := newUDPFakeClock()
	cfg := Config{Clock: clk, IdleTimeout: time.Second, KeepAlive: 200 * time.Millisecond}
	s := udpListenTest(t, cfg)
	c := udpDialTest(t, s, cfg)
	c.Send(c.RemoteAddr(), []byte("hi"))
	_, peer := udpRecvWait(t, s)

	// Keep-alives hold a quiet session open over many idle timeouts.
	for i := range 10 {
		clk.Advance(300 * time.Millisecond)
		base := c.Stats().DatagramsIn
		if _, _, err := c.Recv(nil); !errors.Is(err, transport.ErrWouldBlock) {
			t.Fatalf("client recv: %v", err)
		}
		// The server stamps the session before it answers PONG.
		udpWaitFor(t, "pong", func() bool { return c.Stats().DatagramsIn > base })
		s.Recv(nil)
		if s.Sessions() != 1 {
			t.Fatalf("session ended after %d keep-alives", i)
		}
	}

	// Silence ends it on both sides.
	clk.Advance(1500 * time.Millisecond)
	if _, _, err := s.Recv(nil); !errors.Is(err, transport.ErrWouldBlock) {
		t.Fatal(err)
	}
	if s.Sessions() != 0 || s.Stats().EndedIdle != 1 {
		t.Fatalf("%d sessions, stats %+v", s.Sessions(), s.Stats())
	}
	if err := s.Send(peer, []byte("x")); !errors.Is(err, transport.ErrUnknownPeer) {
		t.Fatalf("send to an idle peer: %v", err)
	}
	if _, _, err := c.Recv(nil); !errors.Is(err, ErrPeerGone) {
		t.Fatalf("client recv after silence: %v", err)
	}
	if c.Stats().EndedIdle != 1 {
		t.Fatalf("client stats %+v", c.Stats())
	}
}

func TestUDPMalformedDropped(t *testing.T) {
	s := udpListenTest(t, Config{})
	c := udpDialTest(t, s, Config{})
	raw := udpRawSocket(t, s)
	junk := [][]byte{
		{},
		{0xFF},
		{udpData, 1, 2},
		make([]byte, 1500),
		append([]byte{udpData}, make([]byte, 1300)...),
		appendUDPWelcome(nil, 1, 2), // a server never receives these
		appendUDPRetry(nil, udpVersionSealed, 1, []byte{1}),
		appendUDPShort(nil, udpData, 1, []byte("plaintext to a sealed server")),
		append(appendUDPShort(nil, udpBye, 1, nil), 0),
	}
	for i, b := range junk {
		raw.Write(b)
		// The match goes on in between.
		c.Send(c.RemoteAddr(), []byte{byte(i)})
		if got, _ := udpRecvWait(t, s); !bytes.Equal(got, []byte{byte(i)}) {
			t.Fatalf("got %v after junk %d", got, i)
		}
	}
	if st := s.Stats(); st.Malformed != uint64(len(junk)) || s.Sessions() != 1 {
		t.Fatalf("malformed %d of %d, %d sessions", st.Malformed, len(junk), s.Sessions())
	}
	// Data with the session's id from another address is dropped too.
	raw.Write(c.seal.seal(nil, udpSealedData, c.sid, []byte("hijack")))
	c.Send(c.RemoteAddr(), []byte("real"))
	if got, _ := udpRecvWait(t, s); string(got) != "real" || s.Stats().UnknownConn != 1 {
		t.Fatalf("got %q, stats %+v", got, s.Stats())
	}
}

func TestUDPQueueBounded(t *testing.T) {
	s := udpListenTest(t, Config{QueueLen: 4})
	c := udpDialTest(t, s, Config{})
	for range 10 {
		c.Send(c.RemoteAddr(), []byte("x"))
	}
	udpWaitFor(t, "10 datagrams read", func() bool { return s.Stats().QueueDropped == 6 })
	n := 0
	for {
		if _, _, err := s.Recv(make([]byte, 8)); err != nil {
			break
		}
		n++
	}
	if n != 4 {
		t.Fatalf("got %d of a 4-deep queue", n)
	}
}

func TestUDPRefusedWhenFull(t *testing.T) {
	s := udpListenTest(t, Config{MaxSessions: 1})
	c := udpDialTest(t, s, Config{})
	c.Send(c.RemoteAddr(), []byte("proof")) // a proven session is never evicted
	udpWaitFor(t, "the session proven", func() bool { return s.Unproven() == 0 })
	_, err := Dial(s.UDPAddr().String(), Config{})
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("dial to a full server: %v", err)
	}
	if s.Stats().Refused != 1 || s.Sessions() != 1 {
		t.Fatalf("stats %+v", s.Stats())
	}
}

func TestUDPDialNobody(t *testing.T) {
	testutil.SkipSockets(t)
	s, err := Listen("127.0.0.1:0", Config{})
	if err != nil {
		t.Fatal(err)
	}
	addr := s.UDPAddr().String()
	s.Close()
	_, err = Dial(addr, Config{HandshakeTimeout: 200 * time.Millisecond, HandshakeRetry: 50 * time.Millisecond})
	if !errors.Is(err, ErrHandshake) {
		t.Fatalf("dial to nobody: %v", err)
	}
	if _, err := Dial("not an address", Config{}); err == nil {
		t.Fatal("dial to a bad address worked")
	}
	if _, err := Listen("127.0.0.1:0", Config{TokenKey: []byte("short")}); !errors.Is(err, transport.ErrBadConfig) {
		t.Fatalf("short key: %v", err)
	}
	udpCheckNoReaders(t)
}

func TestUDPCloseStopsReaders(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 5 {
		s, err := Listen("127.0.0.1:0", Config{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Dial(s.UDPAddr().String(), Config{})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		s.Close()
		if _, _, err := c.Recv(nil); !errors.Is(err, transport.ErrClosed) {
			t.Fatalf("recv after close: %v", err)
		}
		if err := s.Send("udp:x", nil); !errors.Is(err, transport.ErrClosed) {
			t.Fatalf("send after close: %v", err)
		}
	}
	udpCheckNoReaders(t)
	udpWaitFor(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

func TestUDPDialCanceled(t *testing.T) {
	testutil.SkipSockets(t)
	// A socket that never answers: the dial waits until ctx is canceled.
	silent, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := DialContext(ctx, silent.LocalAddr().String(), Config{HandshakeTimeout: time.Minute, HandshakeRetry: time.Minute})
		errc <- err
	}()
	buf := make([]byte, 2048)
	silent.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := silent.Read(buf); err != nil { // the HELLO: the dial is waiting
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled dial: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("dial did not stop when canceled")
	}
}

// TestUDPManyClients runs clients in parallel against one server that
// echoes every datagram: each client gets back exactly its own datagrams.
func TestUDPManyClients(t *testing.T) {
	s := udpListenTest(t, Config{})
	stop := make(chan struct{})
	echoed := make(chan struct{})
	go func() { // the server's one goroutine
		defer close(echoed)
		buf := make([]byte, transport.MaxDatagram)
		for {
			select {
			case <-s.Ready():
			case <-stop:
				return
			}
			for {
				n, from, err := s.Recv(buf)
				if err != nil {
					break
				}
				s.Send(from, buf[:n])
			}
		}
	}()
	const clients, rounds = 8, 50
	errc := make(chan error, clients)
	for i := range clients {
		c := udpDialTest(t, s, Config{})
		go func() {
			buf := make([]byte, transport.MaxDatagram)
			for r := range rounds {
				msg := []byte{byte(i), byte(r)}
				c.Send(c.RemoteAddr(), msg)
				timeout := time.After(10 * time.Second)
			wait:
				for {
					n, _, err := c.Recv(buf)
					switch {
					case err == nil && bytes.Equal(buf[:n], msg):
						break wait
					case err == nil:
						errc <- fmt.Errorf("client %d got %v, want %v", i, buf[:n], msg)
						return
					case !errors.Is(err, transport.ErrWouldBlock):
						errc <- err
						return
					}
					select {
					case <-c.Ready():
					case <-timeout:
						errc <- fmt.Errorf("client %d: no echo of round %d", i, r)
						return
					}
				}
			}
			errc <- nil
		}()
	}
	for range clients {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
	close(stop)
	<-echoed
	if st := s.Stats(); s.Sessions() != clients || st.Opened != clients || st.Malformed+st.UnknownConn+st.QueueDropped != 0 {
		t.Fatalf("%d sessions, stats %+v", s.Sessions(), st)
	}
}
