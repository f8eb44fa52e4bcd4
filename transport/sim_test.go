package transport

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"
)

var simStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// simArrival is one delivered datagram as a test saw it.
type simArrival struct {
	at   time.Duration
	from Addr
	seq  uint32 // first four bytes of the payload
	n    int
}

// simDrain reads everything waiting on c.
func simDrain(t *testing.T, c Conn, now time.Duration, out []simArrival) []simArrival {
	t.Helper()
	buf := make([]byte, MaxDatagram)
	for {
		n, from, err := c.Recv(buf)
		if errors.Is(err, ErrWouldBlock) {
			return out
		}
		if err != nil {
			t.Fatalf("recv: %v", err)
		}
		out = append(out, simArrival{at: now, from: from, seq: binary.BigEndian.Uint32(buf), n: n})
	}
}

// simOneWay sends count datagrams of size bytes from a client to a server, one
// every gap, and steps the clock 1 ms at a time until everything is in,
// returning what the server got and when (relative to the start).
func simOneWay(t *testing.T, net *SimNetwork, count, size int, gap time.Duration) []simArrival {
	t.Helper()
	srv, err := net.Listen("srv")
	if err != nil {
		t.Fatal(err)
	}
	cli, err := net.Dial("cli", "srv")
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, size)
	var got []simArrival
	sent := 0
	for now := time.Duration(0); sent < count || net.InFlight() > 0; now += time.Millisecond {
		net.Advance(simStart.Add(now))
		got = simDrain(t, srv, now, got)
		for sent < count && time.Duration(sent)*gap <= now {
			binary.BigEndian.PutUint32(p, uint32(sent))
			if err := cli.Send(srv.LocalAddr(), p); err != nil {
				t.Fatal(err)
			}
			sent++
		}
		if now > time.Hour {
			t.Fatal("traffic never drained")
		}
	}
	return simDrain(t, srv, 0, got)
}

func TestSimDeterministic(t *testing.T) {
	run := func(seed int64) string {
		net := NewSimNetwork(seed, simStart)
		net.SetDefaultLink(LinkConfig{Latency: 30 * time.Millisecond, Jitter: 20 * time.Millisecond,
			Loss: 0.1, Duplicate: 0.05, Reorder: 0.05, BytesPerSecond: 200_000})
		got := simOneWay(t, net, 2000, 100, time.Millisecond)
		var b bytes.Buffer
		for _, a := range got {
			fmt.Fprintf(&b, "%d %s %d %d\n", a.at, a.from, a.seq, a.n)
		}
		st, _ := net.Stats("cli")
		fmt.Fprintf(&b, "%+v", st)
		return b.String()
	}
	a, b, c := run(7), run(7), run(8)
	if a != b {
		t.Fatal("same seed, different deliveries")
	}
	if a == c {
		t.Fatal("different seeds, same deliveries")
	}
}

func TestSimLatency(t *testing.T) {
	net := NewSimNetwork(1, simStart)
	net.SetDefaultLink(LinkConfig{Latency: 50 * time.Millisecond})
	for _, a := range simOneWay(t, net, 100, 10, 3*time.Millisecond) {
		if want := time.Duration(a.seq)*3*time.Millisecond + 50*time.Millisecond; a.at != want {
			t.Fatalf("datagram %d arrived at %v, want %v", a.seq, a.at, want)
		}
	}
}

func TestSimNextDelivery(t *testing.T) {
	net := NewSimNetwork(1, simStart)
	net.SetDefaultLink(LinkConfig{Latency: 40 * time.Millisecond})
	srv, _ := net.Listen("srv")
	cli, _ := net.Dial("cli", "srv")
	if _, ok := net.NextDelivery(); ok {
		t.Fatal("NextDelivery on an idle network")
	}
	cli.Send("sim:srv", []byte("x"))
	at, ok := net.NextDelivery()
	if !ok || !at.Equal(simStart.Add(40*time.Millisecond)) {
		t.Fatalf("NextDelivery = %v %v", at, ok)
	}
	net.Advance(at.Add(-time.Nanosecond))
	if srv.Pending() != 0 {
		t.Fatal("delivered early")
	}
	net.Advance(at)
	if srv.Pending() != 1 || !net.Now().Equal(at) {
		t.Fatalf("pending %d at %v", srv.Pending(), net.Now())
	}
	net.Advance(simStart) // never backwards
	if !net.Now().Equal(at) {
		t.Fatal("clock went backwards")
	}
}

func TestSimJitter(t *testing.T) {
	net := NewSimNetwork(2, simStart)
	lat, jit := 50*time.Millisecond, 20*time.Millisecond
	net.SetDefaultLink(LinkConfig{Latency: lat, Jitter: jit})
	got := simOneWay(t, net, 2000, 10, time.Millisecond)
	lo, hi := time.Hour, time.Duration(0)
	for _, a := range got {
		d := a.at - time.Duration(a.seq)*time.Millisecond
		// The test clock steps in whole milliseconds, so a delay shows
		// rounded up to the next millisecond.
		if d < lat-jit || d > lat+jit+time.Millisecond {
			t.Fatalf("delay %v outside %v±%v", d, lat, jit)
		}
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo > lat-jit+2*time.Millisecond || hi < lat+jit-2*time.Millisecond {
		t.Fatalf("delays spread only over [%v, %v]", lo, hi)
	}
	if len(got) != 2000 {
		t.Fatalf("got %d of 2000", len(got))
	}
}

func TestSimLoss(t *testing.T) {
	net := NewSimNetwork(3, simStart)
	net.SetDefaultLink(LinkConfig{Loss: 0.2})
	got := simOneWay(t, net, 10000, 10, 100*time.Microsecond)
	st, _ := net.Stats("cli")
	if int(st.Lost)+len(got) != 10000 {
		t.Fatalf("lost %d + got %d != 10000", st.Lost, len(got))
	}
	if math.Abs(float64(st.Lost)/10000-0.2) > 0.02 {
		t.Fatalf("loss rate %v, want about 0.2", float64(st.Lost)/10000)
	}
}

func TestSimDuplicate(t *testing.T) {
	net := NewSimNetwork(4, simStart)
	net.SetDefaultLink(LinkConfig{Latency: 5 * time.Millisecond, Duplicate: 0.1})
	got := simOneWay(t, net, 10000, 10, 100*time.Microsecond)
	st, _ := net.Stats("cli")
	if len(got) != 10000+int(st.Duplicated) {
		t.Fatalf("got %d, want 10000 + %d duplicates", len(got), st.Duplicated)
	}
	if math.Abs(float64(st.Duplicated)/10000-0.1) > 0.015 {
		t.Fatalf("duplication rate %v, want about 0.1", float64(st.Duplicated)/10000)
	}
	rst, _ := net.Stats("srv")
	if rst.ReceivedDatagrams != uint64(len(got)) || rst.ReceivedBytes != uint64(10*len(got)) {
		t.Fatalf("server stats %+v for %d datagrams", rst, len(got))
	}
}

func simOutOfOrder(got []simArrival) int {
	late := 0
	var highest uint32
	for i, a := range got {
		if i > 0 && a.seq < highest {
			late++
		}
		highest = max(highest, a.seq)
	}
	return late
}

func TestSimReorder(t *testing.T) {
	for _, tc := range []struct {
		reorder float64
		wantAny bool
	}{{0, false}, {0.1, true}} {
		net := NewSimNetwork(5, simStart)
		net.SetDefaultLink(LinkConfig{Latency: 20 * time.Millisecond, Reorder: tc.reorder})
		got := simOneWay(t, net, 1000, 10, time.Millisecond)
		late := simOutOfOrder(got)
		if (late > 0) != tc.wantAny {
			t.Fatalf("reorder %v: %d of %d arrived after a later datagram", tc.reorder, late, len(got))
		}
		if tc.wantAny && math.Abs(float64(late)/1000-tc.reorder) > 0.03 {
			t.Fatalf("reorder %v: %d of 1000 late", tc.reorder, late)
		}
	}
}

func TestSimBandwidth(t *testing.T) {
	net := NewSimNetwork(6, simStart)
	net.SetDefaultLink(LinkConfig{Latency: 10 * time.Millisecond, BytesPerSecond: 10_000})
	// 50 datagrams of 100 bytes at once: 5000 bytes take 0.5 s to send.
	got := simOneWay(t, net, 50, 100, 0)
	if len(got) != 50 {
		t.Fatalf("got %d of 50", len(got))
	}
	for _, a := range got {
		if want := time.Duration(a.seq+1)*10*time.Millisecond + 10*time.Millisecond; a.at != want {
			t.Fatalf("datagram %d arrived at %v, want %v", a.seq, a.at, want)
		}
	}

	// With a 100 ms queue limit, only about 11 of them fit.
	net = NewSimNetwork(6, simStart)
	net.SetDefaultLink(LinkConfig{BytesPerSecond: 10_000, QueueLimit: 100 * time.Millisecond})
	got = simOneWay(t, net, 50, 100, 0)
	st, _ := net.Stats("cli")
	if len(got) != 11 || st.QueueDropped != 39 {
		t.Fatalf("got %d, queue-dropped %d; want 11 and 39", len(got), st.QueueDropped)
	}
}

func TestSimBlackout(t *testing.T) {
	net := NewSimNetwork(7, simStart)
	net.SetDefaultLink(LinkConfig{Latency: 10 * time.Millisecond})
	srv, _ := net.Listen("srv")
	cli, _ := net.Dial("cli", "srv")
	net.Blackout("cli", simStart.Add(100*time.Millisecond), simStart.Add(300*time.Millisecond))
	var up, down []simArrival
	for now := time.Duration(0); now < 500*time.Millisecond; now += time.Millisecond {
		net.Advance(simStart.Add(now))
		up = simDrain(t, srv, now, up)
		down = simDrain(t, cli, now, down)
		p := binary.BigEndian.AppendUint32(nil, uint32(now/time.Millisecond))
		cli.Send(srv.LocalAddr(), p)
		srv.Send(cli.LocalAddr(), p)
	}
	// Said nothing from 100 ms to 300 ms: the server misses those sends.
	for _, a := range up {
		if a.seq >= 100 && a.seq < 300 {
			t.Fatalf("server heard datagram sent at %d ms during the blackout", a.seq)
		}
	}
	// Heard nothing from 100 ms to 300 ms: sends from 90 ms to 290 ms.
	for _, a := range down {
		if a.at >= 100*time.Millisecond && a.at < 300*time.Millisecond {
			t.Fatalf("client heard a datagram at %v during the blackout", a.at)
		}
	}
	if len(up) != 490-200 || len(down) != 490-200 {
		t.Fatalf("up %d, down %d; want 290 each", len(up), len(down))
	}
	cs, _ := net.Stats("cli")
	if cs.BlackoutDropped != 400 {
		t.Fatalf("blackout dropped %d, want 400", cs.BlackoutDropped)
	}
}

func TestSimPerLink(t *testing.T) {
	net := NewSimNetwork(8, simStart)
	net.SetDefaultLink(LinkConfig{Latency: 10 * time.Millisecond})
	net.SetLink("far", "srv", LinkConfig{Latency: 100 * time.Millisecond})
	srv, _ := net.Listen("srv")
	near, _ := net.Dial("near", "srv")
	far, _ := net.Dial("far", "srv")
	near.Send("sim:srv", []byte{0, 0, 0, 1})
	far.Send("sim:srv", []byte{0, 0, 0, 2})
	srv.Send("sim:far", []byte{0, 0, 0, 3})
	net.Advance(simStart.Add(10 * time.Millisecond))
	if got := simDrain(t, srv, 0, nil); len(got) != 1 || got[0].from != "sim:near" {
		t.Fatalf("at 10 ms server got %+v", got)
	}
	if got := simDrain(t, far, 0, nil); len(got) != 1 {
		t.Fatalf("reverse link should use the default: got %+v", got)
	}
	net.Advance(simStart.Add(100 * time.Millisecond))
	if got := simDrain(t, srv, 0, nil); len(got) != 1 || got[0].from != "sim:far" {
		t.Fatalf("at 100 ms server got %+v", got)
	}
}

func TestLoopbackImmediate(t *testing.T) {
	lb := NewLoopback()
	srv, _ := lb.Listen("server")
	cli, _ := lb.Dial("p1", "server")
	if err := cli.Send(cli.RemoteAddr(), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.Ready():
	default:
		t.Fatal("Ready not signalled")
	}
	buf := make([]byte, 3)
	n, from, err := srv.Recv(buf)
	if err != nil || n != 3 || string(buf) != "hel" || from != "sim:p1" {
		t.Fatalf("Recv = %d %q %v (%q)", n, from, err, buf)
	}
	if err := srv.Send(from, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	n, from, err = cli.Recv(buf)
	if err != nil || string(buf[:n]) != "hi" || from != "sim:server" {
		t.Fatalf("Recv = %d %q %v", n, from, err)
	}
	if _, _, err := cli.Recv(buf); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("empty Recv: %v", err)
	}
}

func TestSimErrors(t *testing.T) {
	net := NewSimNetwork(9, simStart)
	srv, _ := net.Listen("srv")
	cli, _ := net.Dial("cli", "srv")
	if _, err := net.Listen("srv"); !errors.Is(err, ErrAddrInUse) {
		t.Fatalf("second Listen: %v", err)
	}
	if err := cli.Send("sim:srv", make([]byte, MaxDatagram+1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversize: %v", err)
	}
	if err := cli.Send("sim:other", []byte("x")); !errors.Is(err, ErrUnknownPeer) {
		t.Fatalf("client to other: %v", err)
	}
	if err := srv.Send("sim:nobody", []byte("x")); !errors.Is(err, ErrUnknownPeer) {
		t.Fatalf("server to nobody: %v", err)
	}
	if err := srv.Send("udp:1.2.3.4:5", []byte("x")); !errors.Is(err, ErrUnknownPeer) {
		t.Fatalf("server to foreign address: %v", err)
	}
	if err := cli.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cli.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
	if err := cli.Send("sim:srv", []byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Close: %v", err)
	}
	if _, _, err := cli.Recv(nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Recv after Close: %v", err)
	}
	// A closed peer is known but unreachable: the send vanishes.
	if err := srv.Send("sim:cli", []byte("x")); err != nil {
		t.Fatalf("send to closed peer: %v", err)
	}
	if st, _ := net.Stats("srv"); st.Unroutable != 1 {
		t.Fatalf("unroutable %d", st.Unroutable)
	}
	// The name is free again; traffic in flight to the old one is lost.
	net.SetDefaultLink(LinkConfig{Latency: time.Millisecond})
	cli2, err := net.Dial("cli", "srv")
	if err != nil {
		t.Fatal(err)
	}
	srv.Send("sim:cli", []byte("y"))
	net.Advance(simStart.Add(time.Millisecond))
	if cli2.Pending() != 1 {
		t.Fatalf("reopened endpoint has %d waiting", cli2.Pending())
	}
	// Traffic to a server that is not listening yet is dropped.
	early, _ := net.Dial("early", "later")
	if err := early.Send("sim:later", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if st := early.Stats(); st.Unroutable != 1 || st.SentDatagrams != 1 {
		t.Fatalf("early stats %+v", st)
	}
}

func TestSimCloseDropsInFlight(t *testing.T) {
	net := NewSimNetwork(10, simStart)
	net.SetDefaultLink(LinkConfig{Latency: 10 * time.Millisecond})
	srv, _ := net.Listen("srv")
	cli, _ := net.Dial("cli", "srv")
	cli.Send("sim:srv", []byte("x"))
	srv.Close()
	srv2, _ := net.Listen("srv")
	net.Advance(simStart.Add(time.Second))
	if srv2.Pending() != 0 {
		t.Fatal("a reopened endpoint got its predecessor's datagram")
	}
	if tot := net.TotalStats(); tot.SentDatagrams != 1 || tot.ReceivedDatagrams != 0 {
		t.Fatalf("totals %+v", tot)
	}
}

func TestSimNoAllocs(t *testing.T) {
	net := NewSimNetwork(11, simStart)
	net.SetDefaultLink(LinkConfig{Latency: time.Millisecond, Jitter: time.Millisecond, Loss: 0.01})
	srv, _ := net.Listen("srv")
	cli, _ := net.Dial("cli", "srv")
	p := make([]byte, 100)
	buf := make([]byte, MaxDatagram)
	now := simStart
	step := func() {
		for range 10 {
			cli.Send("sim:srv", p)
		}
		now = now.Add(3 * time.Millisecond)
		net.Advance(now)
		for {
			if _, _, err := srv.Recv(buf); err != nil {
				break
			}
		}
	}
	for range 100 {
		step() // warm the pools
	}
	if a := testing.AllocsPerRun(100, step); a != 0 {
		t.Fatalf("%v allocations per step", a)
	}
}

func BenchmarkSimSendRecv(b *testing.B) {
	lb := NewLoopback()
	srv, _ := lb.Listen("srv")
	cli, _ := lb.Dial("cli", "srv")
	p := make([]byte, 100)
	buf := make([]byte, MaxDatagram)
	b.ReportAllocs()
	for b.Loop() {
		cli.Send("sim:srv", p)
		srv.Recv(buf)
	}
}

// TestSimRouteAfterReopen checks that a sender's cached routes follow an
// endpoint that closes and opens again under its name.
func TestSimRouteAfterReopen(t *testing.T) {
	lb := NewLoopback()
	srv, _ := lb.Listen("srv")
	old, _ := lb.Dial("c", "srv")
	buf := make([]byte, MaxDatagram)
	if err := srv.Send("sim:c", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if n, _, err := old.Recv(buf); err != nil || string(buf[:n]) != "one" {
		t.Fatalf("first: %q %v", buf[:n], err)
	}
	old.Close()
	if err := srv.Send("sim:c", []byte("lost")); err != nil {
		t.Fatal(err)
	}
	if st := srv.Stats(); st.Unroutable != 1 {
		t.Fatalf("send to a closed peer: unroutable %d, want 1", st.Unroutable)
	}
	neu, _ := lb.Dial("c", "srv")
	if err := srv.Send("sim:c", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if neu.Pending() != 1 {
		t.Fatalf("after reopening: %d pending, want 1", neu.Pending())
	}
	if n, _, err := neu.Recv(buf); err != nil || string(buf[:n]) != "two" {
		t.Fatalf("after reopening: %q %v", buf[:n], err)
	}
}

// BenchmarkSimFanOut is a server's pattern: a listener sends one datagram
// to each of 16 peers in turn (an op is one datagram sent and received).
func BenchmarkSimFanOut(b *testing.B) {
	lb := NewLoopback()
	srv, _ := lb.Listen("srv")
	var peers []Conn
	var addrs []Addr
	for i := range 16 {
		c, _ := lb.Dial(fmt.Sprintf("c%d", i), "srv")
		peers = append(peers, c)
		addrs = append(addrs, c.LocalAddr())
	}
	p := make([]byte, 100)
	buf := make([]byte, MaxDatagram)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		srv.Send(addrs[i], p)
		peers[i].Recv(buf)
		i = (i + 1) % len(peers)
	}
}

func TestSimInboxOverflow(t *testing.T) {
	lb := NewLoopback()
	srv, _ := lb.Listen("srv")
	cli, _ := lb.Dial("cli", "srv")
	for range simInboxLimit + 10 {
		cli.Send("sim:srv", []byte("x"))
	}
	if srv.Pending() != simInboxLimit || srv.Stats().OverflowDropped != 10 {
		t.Fatalf("pending %d, overflow %d", srv.Pending(), srv.Stats().OverflowDropped)
	}
}
