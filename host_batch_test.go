package rewind_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
)

// countingBatcher is a server-side Conn that is a transport.Batcher: its
// Batches queue copies and send them through the Conn on Flush, counting
// flushes, the datagrams they carried and the Sends that went around
// them.
type countingBatcher struct {
	transport.Conn
	direct, flushes, batched, biggest int
}

func (c *countingBatcher) Send(to transport.Addr, p []byte) error {
	c.direct++
	return c.Conn.Send(to, p)
}

func (c *countingBatcher) NewBatch() transport.Batch { return &countingBatch{c: c} }

type countingBatch struct {
	c    *countingBatcher
	to   []transport.Addr
	bufs [][]byte
}

func (b *countingBatch) Send(to transport.Addr, p []byte) error {
	b.to, b.bufs = append(b.to, to), append(b.bufs, append([]byte(nil), p...))
	return nil
}

func (b *countingBatch) Flush() error {
	if len(b.to) == 0 {
		return nil
	}
	b.c.flushes++
	b.c.batched += len(b.to)
	b.c.biggest = max(b.c.biggest, len(b.to))
	for i, to := range b.to {
		if err := b.c.Conn.Send(to, b.bufs[i]); err != nil {
			return err
		}
	}
	b.to, b.bufs = b.to[:0], b.bufs[:0]
	return nil
}

// TestHostBatchesOverMulti hosts a match over a MultiConn of a Batcher
// (as a UDP socket is) and a plain Conn (as a WebRTC room is), three
// players on the first and one on the second, in made-up time: every
// datagram to the Batcher's players goes through a batch, at most one
// flush per Update, a tick's datagrams to its three players in one flush;
// the plain member's player plays as well.
func TestHostBatchesOverMulti(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var nets [2]*transport.SimNetwork
	var members [2]transport.Conn
	for i := range nets {
		nets[i] = transport.NewSimNetwork(int64(i+7), start)
		nets[i].SetDefaultLink(transport.LinkConfig{Latency: 10 * time.Millisecond, Jitter: time.Millisecond})
		c, err := nets[i].Listen("server")
		if err != nil {
			t.Fatal(err)
		}
		members[i] = c
	}
	fake := &countingBatcher{Conn: members[0]}
	multi, err := transport.NewMulti(fake, members[1])
	if err != nil {
		t.Fatal(err)
	}
	hashes := testutil.NewHostHashes()
	h, err := rewind.NewHost[testgame.Input](&testgame.Game{}, multi, rewind.HostOptions{
		Server: server.Config{StartPlayers: 4, OnTick: hashes.OnTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	on := []int{0, 0, 0, 1} // player i's network
	sessions := connectBots(t, hashes, len(on), func(i int) (transport.Conn, error) {
		return nets[on[i]].Dial(fmt.Sprintf("p%d", i), "server")
	})
	now := start
	updates := 0
	for range 2000 {
		now = now.Add(time.Millisecond)
		for _, n := range nets {
			n.Advance(now)
		}
		if err := h.Update(now); err != nil {
			t.Fatalf("host: %v", err)
		}
		updates++
		for i, s := range sessions {
			if err := s.Update(now); err != nil {
				t.Fatalf("player %d: %v", i, err)
			}
		}
	}
	for i, s := range sessions {
		if st := s.Stats(); st.Verified < 60 || st.Desyncs != 0 {
			t.Errorf("player %d: %+v", i, st)
		}
	}
	ticks := int(h.Stats().Match.Tick)
	if fake.direct != 0 {
		t.Errorf("%d datagrams sent around the batch", fake.direct)
	}
	if fake.flushes == 0 || fake.flushes > updates {
		t.Errorf("%d flushes in %d updates", fake.flushes, updates)
	}
	t.Logf("%d updates, %d ticks: %d flushes of %d datagrams (at most %d in one), %d sent around the batch",
		updates, ticks, fake.flushes, fake.batched, fake.biggest, fake.direct)
	if fake.biggest < 3 || fake.batched < 3*ticks {
		t.Errorf("%d datagrams in %d flushes (at most %d in one) over %d ticks: want a tick's 3 in one", fake.batched, fake.flushes, fake.biggest, ticks)
	}
}

// TestHostUDPBesideAnotherConn hosts a match over a MultiConn of a UDP
// socket on 127.0.0.1 and a simulated Conn, with two players over UDP in
// real time: they play, and the socket's sends left in batches
// (udp.Stats.Flushes), a tick's datagrams to both players in one.
func TestHostUDPBesideAnotherConn(t *testing.T) {
	testutil.SkipSockets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sock, err := udp.Listen("127.0.0.1:0", udp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := transport.NewSimNetwork(1, time.Now()).Listen("server")
	if err != nil {
		sock.Close()
		t.Fatal(err)
	}
	multi, err := transport.NewMulti(sock, other)
	if err != nil {
		t.Fatal(err)
	}
	hashes := testutil.NewHostHashes()
	h, err := rewind.NewHost[testgame.Input](&testgame.Game{}, multi, rewind.HostOptions{
		Server: server.Config{StartPlayers: 2, OnTick: hashes.OnTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	stop := testutil.RunHost(ctx, t, h)
	defer stop()
	const until = 60
	errs := make(chan error, 2)
	for i := range 2 {
		go func() {
			pctx, pcancel := context.WithCancel(ctx)
			defer pcancel()
			var o rewind.UDPOptions
			o.Client.OnVerified = func(tick uint32, hash uint64) {
				if sh := hashes.Hash(tick); sh != hash {
					errs <- fmt.Errorf("player %d, tick %d: %016x, host %016x", i, tick, hash, sh)
					pcancel()
				}
				if tick >= until {
					pcancel()
				}
			}
			s, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, sock.UDPAddr().String(), o)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(rewind.PlayerID(i), tick) })
			if err := s.Run(pctx); err != nil {
				errs <- err
				return
			}
			if st := s.Stats(); st.Verified < until || st.Desyncs != 0 {
				errs <- fmt.Errorf("player %d: verified %d, desyncs %d", i, st.Verified, st.Desyncs)
				return
			}
			errs <- nil
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	st := sock.Stats()
	// The ticks the host ran (its match may have ended already, both
	// players gone, and its stats with it).
	ticks := hashes.Ticks()
	if st.Flushes == 0 || st.Flushes > st.DatagramsOut {
		t.Errorf("%d flushes for %d datagrams out", st.Flushes, st.DatagramsOut)
	}
	t.Logf("%d ticks: %d flushes, %d datagrams out (handshakes included)", ticks, st.Flushes, st.DatagramsOut)
	// Two players, a tick's datagrams in one flush: about as many flushes
	// as ticks, not twice as many.
	if st.Flushes >= 2*uint64(ticks) {
		t.Errorf("%d flushes in %d ticks of two players: not batched", st.Flushes, ticks)
	}
}
