package udp

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/transport"
)

// udpDrainedRecv drains c until Recv returns a datagram (10 s at most).
func udpDrainedRecv(t *testing.T, c *Client) []byte {
	t.Helper()
	buf := make([]byte, transport.MaxDatagram)
	var got []byte
	udpWaitFor(t, "a drained datagram", func() bool {
		c.Drain()
		n, _, err := c.Recv(buf)
		if err != nil && !errors.Is(err, transport.ErrWouldBlock) {
			t.Fatalf("recv: %v", err)
		}
		got = buf[:n]
		return err == nil
	})
	return got
}

// TestUDPClientDrained: a client with Config.Drained runs no reader
// goroutine; what the server sends waits in the socket until Drain, then
// Recv returns it, sealed and opened as ever (more than a read's batch
// in order), Send and the keep-alive go out on the drained socket, and
// the server's BYE ends the session at the next Drain.
func TestUDPClientDrained(t *testing.T) {
	s := udpListenTest(t, Config{})
	c := udpDialTest(t, s, Config{Drained: true})
	if want := runtime.GOOS == "linux"; c.Draining() != want {
		t.Fatalf("Draining() = %v on %s", c.Draining(), runtime.GOOS)
	}
	if !c.Draining() {
		t.Skip("no drained sockets on " + runtime.GOOS)
	}
	if err := c.Send(c.RemoteAddr(), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	got, peer := udpRecvWait(t, s)
	if string(got) != "hello" {
		t.Fatalf("server got %q", got)
	}
	const total = 3 * udpClientReadBatch
	for seq := range total {
		if err := s.Send(peer, []byte{byte(seq), 0xCD}); err != nil {
			t.Fatal(err)
		}
	}
	for seq := range total {
		if got := udpDrainedRecv(t, c); len(got) != 2 || got[0] != byte(seq) || got[1] != 0xCD {
			t.Fatalf("datagram %d: %x", seq, got)
		}
	}
	if st := c.Stats(); st.DatagramsIn < total || st.Reads == 0 || st.Reads > st.DatagramsIn {
		t.Errorf("stats: %d datagrams in %d reads", st.DatagramsIn, st.Reads)
	}
	stacks := make([]byte, 1<<20)
	if n := runtime.Stack(stacks, true); strings.Contains(string(stacks[:n]), "(*Client).readLoop") {
		t.Error("a drained client runs a reader goroutine")
	}
	if err := s.Close(); err != nil { // says BYE
		t.Fatal(err)
	}
	udpWaitFor(t, "the server's bye", func() bool {
		c.Drain()
		_, _, err := c.Recv(make([]byte, 10))
		return errors.Is(err, ErrPeerGone)
	})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := c.Drain(); n != 0 {
		t.Errorf("Drain after Close read %d", n)
	}
}
