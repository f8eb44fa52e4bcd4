package lossy

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// echo starts a UDP echo server on 127.0.0.1:0 that answers every
// datagram with "echo:" and the datagram, until the test ends.
func echo(t *testing.T) string {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			n, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			c.WriteToUDPAddrPort(append([]byte("echo:"), buf[:n]...), from)
		}
	}()
	t.Cleanup(func() { c.Close(); <-done })
	return c.LocalAddr().String()
}

// dial opens a client socket to the forwarder.
func dial(t *testing.T, f *Forwarder) *net.UDPConn {
	t.Helper()
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(f.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func listen(t *testing.T, target string, cfg Config) *Forwarder {
	t.Helper()
	f, err := Listen("127.0.0.1:0", target, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// roundTrip sends msg on c and returns the answer, or "" after wait.
func roundTrip(t *testing.T, c *net.UDPConn, msg string, wait time.Duration) string {
	t.Helper()
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 2048)
	n, err := c.Read(buf)
	if err != nil {
		return ""
	}
	return string(buf[:n])
}

// TestForwardEveryDatagram: without loss every datagram goes through and
// every answer comes back to the client that asked, each client on its
// own flow.
func TestForwardEveryDatagram(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	f := listen(t, echo(t), Config{})
	a, b := dial(t, f), dial(t, f)
	for i := range 50 {
		for name, c := range map[string]*net.UDPConn{"a": a, "b": b} {
			msg := fmt.Sprintf("%s%d", name, i)
			if got := roundTrip(t, c, msg, 5*time.Second); got != "echo:"+msg {
				t.Fatalf("client %s: got %q, want %q", name, got, "echo:"+msg)
			}
		}
	}
	st := f.Stats()
	if st.Up != 100 || st.Down != 100 || st.DroppedUp+st.DroppedDown != 0 || st.Flows != 2 || st.FlowsOpened != 2 {
		t.Errorf("stats %+v: want 100 up, 100 down, none dropped, 2 flows", st)
	}
}

// TestForwardLoss: with Loss 0.5 about half of each direction's
// datagrams are dropped (bounds far beyond the binomial spread), and
// every datagram is either forwarded or counted dropped.
func TestForwardLoss(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	f := listen(t, echo(t), Config{Loss: 0.5, Seed: 7})
	c := dial(t, f)
	const n = 400
	for i := range n {
		if _, err := c.Write([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		if i%20 == 19 {
			time.Sleep(5 * time.Millisecond) // stay within the socket buffers
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	testutil.WaitUntil(ctx, t, "every datagram up forwarded or dropped, and every answer", func() bool {
		st := f.Stats()
		return st.Up+st.DroppedUp == n && st.Down+st.DroppedDown == st.Up
	})
	st := f.Stats()
	if st.DroppedUp < 140 || st.DroppedUp > 260 {
		t.Errorf("dropped %d of %d going up, want about half", st.DroppedUp, n)
	}
	if st.Up > 40 && (st.DroppedDown < st.Up/4 || st.DroppedDown > st.Up*3/4) {
		t.Errorf("dropped %d of %d going down, want about half", st.DroppedDown, st.Up)
	}
}

// TestForwardDelay: a round trip through a forwarder that holds each
// datagram 25 ms plus up to 10 ms of jitter takes at least 50 ms (two
// holds); and a datagram held is still delivered.
func TestForwardDelay(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	f := listen(t, echo(t), Config{Delay: 25 * time.Millisecond, Jitter: 10 * time.Millisecond})
	c := dial(t, f)
	for i := range 5 {
		start := time.Now()
		msg := fmt.Sprint(i)
		if got := roundTrip(t, c, msg, 5*time.Second); got != "echo:"+msg {
			t.Fatalf("got %q, want %q", got, "echo:"+msg)
		}
		if d := time.Since(start); d < 50*time.Millisecond {
			t.Errorf("round trip %v: want at least two holds of 25 ms", d)
		}
	}
}

// TestForwardExpiresIdleFlows: a flow silent for IdleTimeout is
// forgotten (its socket closed), and the client is a new flow when it
// speaks again.
func TestForwardExpiresIdleFlows(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	f := listen(t, echo(t), Config{IdleTimeout: 100 * time.Millisecond})
	c := dial(t, f)
	if got := roundTrip(t, c, "x", 5*time.Second); got != "echo:x" {
		t.Fatalf("got %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	testutil.WaitUntil(ctx, t, "the idle flow forgotten", func() bool { return f.Stats().Flows == 0 })
	if got := roundTrip(t, c, "y", 5*time.Second); got != "echo:y" {
		t.Fatalf("after expiry: got %q", got)
	}
	if st := f.Stats(); st.FlowsOpened != 2 || st.FlowsExpired != 1 {
		t.Errorf("stats %+v: want 2 flows opened, 1 expired", st)
	}
}

// TestForwardMaxFlows: a client beyond MaxFlows is dropped and counted.
func TestForwardMaxFlows(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	f := listen(t, echo(t), Config{MaxFlows: 1})
	a, b := dial(t, f), dial(t, f)
	if got := roundTrip(t, a, "a", 5*time.Second); got != "echo:a" {
		t.Fatalf("got %q", got)
	}
	if got := roundTrip(t, b, "b", 200*time.Millisecond); got != "" {
		t.Fatalf("second client past MaxFlows 1 got an answer %q", got)
	}
	if st := f.Stats(); st.Refused != 1 || st.Flows != 1 {
		t.Errorf("stats %+v: want 1 refused, 1 flow", st)
	}
}

// TestForwardClose: Close stops every goroutine (CheckGoroutines) with
// datagrams still held, and Run returns once its context ends.
func TestForwardClose(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	f, err := Listen("127.0.0.1:0", echo(t), Config{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, f)
	c.Write([]byte("held"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
