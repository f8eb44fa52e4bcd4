package transport

import (
	"errors"
	"runtime"
	"testing"
	"time"
)

// multiPair is a MultiConn over two simulated networks, each with a
// server endpoint "srv" and a client named "p" on it: the two clients have
// the same address on their own networks.
type multiPair struct {
	nets [2]*SimNetwork
	srvs [2]*SimConn
	clis [2]*SimConn
	m    *MultiConn
}

func newMultiPair(t *testing.T, link LinkConfig) *multiPair {
	t.Helper()
	var mp multiPair
	for i := range mp.nets {
		mp.nets[i] = NewSimNetwork(int64(i+1), simStart)
		mp.nets[i].SetDefaultLink(link)
		srv, err := mp.nets[i].Listen("srv")
		if err != nil {
			t.Fatal(err)
		}
		cli, err := mp.nets[i].Dial("p", "srv")
		if err != nil {
			t.Fatal(err)
		}
		mp.srvs[i], mp.clis[i] = srv, cli
	}
	m, err := NewMulti(mp.srvs[0], mp.srvs[1])
	if err != nil {
		t.Fatal(err)
	}
	mp.m = m
	return &mp
}

func (mp *multiPair) advance(now time.Time) {
	for _, n := range mp.nets {
		n.Advance(now)
	}
}

// TestMultiAddressesStayDistinct: two peers with the same address on
// different members get different Addrs, replies reach the right one, and
// an Addr is the same value every time.
func TestMultiAddressesStayDistinct(t *testing.T) {
	mp := newMultiPair(t, LinkConfig{Latency: 10 * time.Millisecond})
	defer mp.m.Close()
	if mp.clis[0].LocalAddr() != mp.clis[1].LocalAddr() {
		t.Fatalf("test setup: want equal member addresses, got %s and %s", mp.clis[0].LocalAddr(), mp.clis[1].LocalAddr())
	}
	froms := map[Addr]byte{}
	buf := make([]byte, MaxDatagram)
	now := simStart
	for round := range 3 {
		for i, c := range mp.clis {
			if err := c.Send(c.RemoteAddr(), []byte{byte(i), byte(round)}); err != nil {
				t.Fatal(err)
			}
		}
		now = now.Add(20 * time.Millisecond)
		mp.advance(now)
		got := 0
		for {
			n, from, err := mp.m.Recv(buf)
			if errors.Is(err, ErrWouldBlock) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if n != 2 || buf[1] != byte(round) {
				t.Fatalf("round %d: got % x", round, buf[:n])
			}
			if who, ok := froms[from]; ok && who != buf[0] {
				t.Fatalf("Addr %s came from client %d and %d", from, who, buf[0])
			}
			froms[from] = buf[0]
			got++
			if err := mp.m.Send(from, []byte{'r', buf[0]}); err != nil {
				t.Fatal(err)
			}
		}
		if got != 2 {
			t.Fatalf("round %d: %d datagrams, want 2", round, got)
		}
	}
	if len(froms) != 2 {
		t.Fatalf("%d distinct Addrs for 2 peers: %v", len(froms), froms)
	}
	for a, who := range froms {
		if want := MultiAddr(int(who), mp.clis[who].LocalAddr()); a != want {
			t.Errorf("client %d appears as %q, want %q", who, a, want)
		}
	}
	now = now.Add(20 * time.Millisecond)
	mp.advance(now)
	for i, c := range mp.clis {
		for range 3 {
			n, from, err := c.Recv(buf)
			if err != nil {
				t.Fatalf("client %d: %v", i, err)
			}
			if from != c.RemoteAddr() || n != 2 || buf[0] != 'r' || buf[1] != byte(i) {
				t.Fatalf("client %d got % x from %s", i, buf[:n], from)
			}
		}
		if _, _, err := c.Recv(buf); !errors.Is(err, ErrWouldBlock) {
			t.Fatalf("client %d: extra datagram (%v)", i, err)
		}
	}
}

// TestMultiTakesTurns: a flooded member does not starve the other.
func TestMultiTakesTurns(t *testing.T) {
	mp := newMultiPair(t, LinkConfig{})
	defer mp.m.Close()
	for range 100 {
		if err := mp.clis[0].Send("sim:srv", []byte{0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := mp.clis[1].Send("sim:srv", []byte{1}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, MaxDatagram)
	for k := range 2 {
		_, _, err := mp.m.Recv(buf)
		if err != nil {
			t.Fatal(err)
		}
		if buf[0] == 1 {
			break
		}
		if k == 1 {
			t.Fatal("member 1's datagram not among the first two of 101")
		}
	}
	count := 0
	for {
		_, _, err := mp.m.Recv(buf)
		if errors.Is(err, ErrWouldBlock) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		count++
	}
	if count != 99 {
		t.Fatalf("%d more datagrams, want 99", count)
	}
}

// TestMultiRecvDoesNotAllocate: a known peer's datagrams reuse its Addr.
func TestMultiRecvDoesNotAllocate(t *testing.T) {
	mp := newMultiPair(t, LinkConfig{})
	defer mp.m.Close()
	buf := make([]byte, MaxDatagram)
	p := []byte{1, 2, 3}
	allocs := testing.AllocsPerRun(200, func() {
		_ = mp.clis[1].Send("sim:srv", p)
		if _, _, err := mp.m.Recv(buf); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per Send+Recv, want 0", allocs)
	}
}

func TestMultiErrors(t *testing.T) {
	if _, err := NewMulti(); !errors.Is(err, ErrBadConfig) {
		t.Errorf("no members: %v", err)
	}
	net := NewSimNetwork(1, simStart)
	srv, _ := net.Listen("srv")
	cli, _ := net.Dial("cli", "srv")
	if _, err := NewMulti(srv, cli); !errors.Is(err, ErrBadConfig) {
		t.Errorf("client member: %v", err)
	}
	if _, err := NewMulti(srv, nil); !errors.Is(err, ErrBadConfig) {
		t.Errorf("nil member: %v", err)
	}
	m, err := NewMulti(srv)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.LocalAddr(), Addr("multi(0/sim:srv)"); got != want {
		t.Errorf("LocalAddr %q, want %q", got, want)
	}
	if m.RemoteAddr() != "" || m.Members() != 1 || m.Member(0) != srv {
		t.Errorf("RemoteAddr %q, Members %d", m.RemoteAddr(), m.Members())
	}
	for _, to := range []Addr{"sim:cli", "1/sim:cli", "x/sim:cli", "", "/sim:cli", "00/sim:cli"} {
		if err := m.Send(to, []byte{1}); !errors.Is(err, ErrUnknownPeer) {
			t.Errorf("Send to %q: %v, want ErrUnknownPeer", to, err)
		}
	}
	if err := m.Send("0/sim:cli", make([]byte, MaxDatagram+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized: %v", err)
	}
	if err := m.Send("0/sim:cli", []byte{1}); err != nil {
		t.Errorf("Send to a member's peer: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
	if err := m.Send("0/sim:cli", []byte{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
	if _, _, err := m.Recv(make([]byte, 10)); !errors.Is(err, ErrClosed) {
		t.Errorf("Recv after Close: %v", err)
	}
	if err := srv.Send("sim:cli", []byte{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("member not closed by Close: %v", err)
	}
}

// TestMultiMemberFailure: a member closed behind the MultiConn's back
// fails Recv with its error.
func TestMultiMemberFailure(t *testing.T) {
	mp := newMultiPair(t, LinkConfig{})
	mp.srvs[1].Close()
	if _, _, err := mp.m.Recv(make([]byte, 10)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Recv with a closed member: %v", err)
	}
	if err := mp.m.Close(); err == nil || !errors.Is(err, ErrClosed) {
		t.Fatalf("Close reports the member's second Close: %v", err)
	}
}

func TestSplitMultiAddr(t *testing.T) {
	for _, tc := range []struct {
		in   Addr
		i    int
		addr Addr
		ok   bool
	}{
		{"0/udp:127.0.0.1:4000#9", 0, "udp:127.0.0.1:4000#9", true},
		{"12/webrtc:K3F9/x", 12, "webrtc:K3F9/x", true},
		{"3/", 3, "", true},
		{"9999/a", 9999, "a", true},
		{"10000/a", 0, "", false},
		{"01/a", 0, "", false},
		{"/a", 0, "", false},
		{"a/b", 0, "", false},
		{"-1/b", 0, "", false},
		{"12", 0, "", false},
		{"", 0, "", false},
	} {
		i, addr, ok := SplitMultiAddr(tc.in)
		if i != tc.i || addr != tc.addr || ok != tc.ok {
			t.Errorf("SplitMultiAddr(%q) = %d, %q, %v; want %d, %q, %v", tc.in, i, addr, ok, tc.i, tc.addr, tc.ok)
		}
		if ok {
			if back := MultiAddr(i, addr); back != tc.in {
				t.Errorf("MultiAddr(SplitMultiAddr(%q)) = %q", tc.in, back)
			}
		}
	}
}

// TestMultiReady: a datagram on either member signals Ready; Close stops
// the forwarding goroutines.
func TestMultiReady(t *testing.T) {
	before := runtime.NumGoroutine()
	mp := newMultiPair(t, LinkConfig{})
	ready := mp.m.Ready()
	if mp.m.Ready() != ready {
		t.Fatal("Ready returned a different channel")
	}
	buf := make([]byte, MaxDatagram)
	for i, c := range mp.clis {
		if err := c.Send("sim:srv", []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ready:
		case <-time.After(5 * time.Second): // a hang guard only
			t.Fatalf("no ready signal for member %d", i)
		}
		n, from, err := mp.m.Recv(buf)
		if err != nil || n != 1 || buf[0] != byte(i) || from != MultiAddr(i, "sim:p") {
			t.Fatalf("member %d: % x from %s, %v", i, buf[:n], from, err)
		}
	}
	if err := mp.m.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines leaked: %d before, %d after Close", before, runtime.NumGoroutine())
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}
