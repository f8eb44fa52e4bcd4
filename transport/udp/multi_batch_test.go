package udp

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/transport"
)

// TestMultiBatch sends through a MultiConn's Batch to two UDP clients of
// a member Server on 127.0.0.1 and to a peer of a simulated member:
// the UDP datagrams wait for Flush and then leave in one flush, the
// simulated one goes at once; bad addresses and a closed MultiConn fail
// as MultiConn.Send does.
func TestMultiBatch(t *testing.T) {
	s := udpListenTest(t, Config{})
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sim := transport.NewSimNetwork(1, start)
	other, err := sim.Listen("server")
	if err != nil {
		t.Fatal(err)
	}
	m, err := transport.NewMulti(s, other)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var peers []transport.Addr
	var clients []*Client
	for i := range 2 {
		c := udpDialTest(t, s, Config{})
		c.Send(c.RemoteAddr(), []byte{byte(i)})
		_, from := udpRecvWait(t, m)
		peers, clients = append(peers, from), append(clients, c)
	}
	sc, err := sim.Dial("p", "server")
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	sc.Send(sc.RemoteAddr(), []byte("hi"))
	sim.Advance(start)
	_, simPeer := udpRecvWait(t, m)

	// The socket's counters also count what it sends on its own (a
	// handshake worker answering a client's repeated hello, under load):
	// a round whose counts another datagram spoiled is tried again; a
	// batch that does not batch fails every round.
	b := m.NewBatch()
	var after Stats
	var spoiled string
	for range 3 {
		if after, spoiled = batchRound(t, s, b, sim, start, peers, clients, simPeer, sc); spoiled == "" {
			break
		}
	}
	if spoiled != "" {
		t.Error(spoiled)
	}
	if err := b.Flush(); err != nil || s.Stats().Flushes != after.Flushes {
		t.Errorf("an empty Flush: %v, %d flushes", err, s.Stats().Flushes-after.Flushes)
	}
	for _, bad := range []transport.Addr{"udp:127.0.0.1:1#1", "7/udp:127.0.0.1:1#1", "0/udp:127.0.0.1:1#99"} {
		if err := b.Send(bad, []byte("x")); !errors.Is(err, transport.ErrUnknownPeer) {
			t.Errorf("send to %q: %v, want ErrUnknownPeer", bad, err)
		}
	}
	m.Close()
	if err := b.Send(peers[0], []byte("x")); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("send after close: %v, want ErrClosed", err)
	}
}

// batchRound sends a datagram to each UDP peer and one to the simulated
// peer through b, checks that only the simulated one left before Flush
// and that Flush sent the others in one flush, and returns the socket's
// stats after; spoiled says what its counters found amiss.
func batchRound(t *testing.T, s *Server, b transport.Batch, sim *transport.SimNetwork, start time.Time,
	peers []transport.Addr, clients []*Client, simPeer transport.Addr, sc *transport.SimConn) (after Stats, spoiled string) {
	t.Helper()
	before := s.Stats()
	for i, p := range peers {
		if err := b.Send(p, []byte{'u', byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Send(simPeer, []byte("s")); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.DatagramsOut != before.DatagramsOut {
		spoiled = fmt.Sprintf("UDP datagrams left before Flush: %d", st.DatagramsOut-before.DatagramsOut)
	}
	sim.Advance(start)
	if got, _ := udpRecvWait(t, sc); string(got) != "s" {
		t.Errorf("the simulated peer got %q, want the datagram at once", got)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, c := range clients {
		if got, _ := udpRecvWait(t, c); len(got) != 2 || got[0] != 'u' || got[1] != byte(i) {
			t.Errorf("client %d got %v", i, got)
		}
	}
	after = s.Stats()
	if spoiled == "" && (after.Flushes-before.Flushes != 1 || after.DatagramsOut-before.DatagramsOut != 2) {
		spoiled = fmt.Sprintf("%d flushes, %d datagrams out: want 1 and 2", after.Flushes-before.Flushes, after.DatagramsOut-before.DatagramsOut)
	}
	return after, spoiled
}
