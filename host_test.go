package rewind_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// TestMatchOverMulti plays one match in made-up time whose server takes
// players from two networks at once through a MultiConn (as a room host
// takes WebRTC and UDP players): each network has two players, two of them
// with the same address on their own networks. Every verified tick of
// every player must hash as the server's.
func TestMatchOverMulti(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var nets [2]*transport.SimNetwork
	var members [2]transport.Conn
	for i := range nets {
		nets[i] = transport.NewSimNetwork(int64(i+7), start)
		nets[i].SetDefaultLink(transport.LinkConfig{Latency: time.Duration(10+20*i) * time.Millisecond, Jitter: 3 * time.Millisecond, Loss: 0.02})
		c, err := nets[i].Listen("server")
		if err != nil {
			t.Fatal(err)
		}
		members[i] = c
	}
	multi, err := transport.NewMulti(members[0], members[1])
	if err != nil {
		t.Fatal(err)
	}
	defer multi.Close()
	hashes := map[uint32]uint64{}
	srv, err := server.New[testgame.Input](&testgame.Game{}, multi, server.Config{
		StartPlayers: 4,
		OnTick:       func(tick uint32, w *world.World, h uint64) { hashes[tick] = h },
	})
	if err != nil {
		t.Fatal(err)
	}
	var sessions []*rewind.Session[testgame.Input]
	checked := make([]int, 4)
	for i, name := range []string{"p", "q", "p", "r"} {
		conn, err := nets[i/2].Dial(name, "server")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var opts rewind.Options
		opts.Client.OnVerified = func(tick uint32, h uint64) {
			checked[i]++
			if hashes[tick] != h {
				t.Errorf("player %d, tick %d: hash %016x, server %016x", i, tick, h, hashes[tick])
			}
		}
		s, err := rewind.Connect[testgame.Input](&testgame.Game{}, conn, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(rewind.PlayerID(i), tick) }) // runs inside Update: no Session calls
		sessions = append(sessions, s)
	}
	now := start
	for range 4000 {
		now = now.Add(time.Millisecond)
		for _, n := range nets {
			n.Advance(now)
		}
		if err := srv.Update(now); err != nil {
			t.Fatal(err)
		}
		for i, s := range sessions {
			if err := s.Update(now); err != nil {
				t.Fatalf("player %d: %v", i, err)
			}
		}
	}
	if st := srv.Stats(); st.Players != 4 || st.Joins != 4 {
		t.Fatalf("server: %+v", st)
	}
	ids := map[rewind.PlayerID]bool{}
	for i, s := range sessions {
		st := s.Stats()
		if st.Verified < 180 || checked[i] < 180 || st.Desyncs != 0 {
			t.Errorf("player %d after 4 s: %+v, %d ticks checked", i, st, checked[i])
		}
		id, ok := s.Player()
		if !ok || ids[id] {
			t.Errorf("player %d: id %d (welcomed %v) not distinct", i, id, ok)
		}
		ids[id] = true
	}
}

// TestHostOverMultiSaysGoodbye runs a Host over a MultiConn of two
// simulated networks in made-up time: one player on each, a match that
// starts with both, the host's counters, and a Close that says goodbye, so
// that both players' sessions end at once (ErrKicked) rather than after
// their timeout.
func TestHostOverMultiSaysGoodbye(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var nets [2]*transport.SimNetwork
	var members [2]transport.Conn
	for i := range nets {
		nets[i] = transport.NewSimNetwork(int64(i+3), start)
		nets[i].SetDefaultLink(transport.LinkConfig{Latency: 15 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.01})
		c, err := nets[i].Listen("server")
		if err != nil {
			t.Fatal(err)
		}
		members[i] = c
	}
	multi, err := transport.NewMulti(members[0], members[1])
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
	if !h.NextDeadline().IsZero() {
		t.Errorf("NextDeadline before the match: %v, want zero", h.NextDeadline())
	}
	if _, ok := h.UDPAddr(); ok {
		t.Error("UDPAddr: a Host without UDP has one")
	}
	sessions := connectBots(t, hashes, len(nets), func(i int) (transport.Conn, error) { return nets[i].Dial("p", "server") })
	now := start
	step := func() error {
		now = now.Add(time.Millisecond)
		for _, n := range nets {
			n.Advance(now)
		}
		if err := h.Update(now); err != nil {
			t.Fatalf("host: %v", err)
		}
		for _, s := range sessions {
			if err := s.Update(now); err != nil {
				return err
			}
		}
		return nil
	}
	for range 2000 {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	st := h.Stats()
	if st.Matches != 1 || !st.Running || st.Match.Players != 2 || st.Total.Joins != 2 || st.Peers != 0 || st.UDP.DatagramsIn != 0 {
		t.Errorf("host stats: %+v", st)
	}
	if next := h.NextDeadline(); next.Before(now.Add(-time.Second/60)) || next.After(now.Add(time.Second/60)) {
		t.Errorf("NextDeadline %v, not within a tick of now %v", next, now)
	}
	for i, s := range sessions {
		if st := s.Stats(); st.Verified < 60 || st.Desyncs != 0 {
			t.Errorf("player %d: %+v", i, st)
		}
	}
	if err := h.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := h.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := h.Update(now); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Update after Close: %v, want transport.ErrClosed", err)
	}
	// Within 200 ms (far under the 5 s timeout) both players have read the
	// goodbye.
	ended := make([]error, len(sessions))
	for range 200 {
		now = now.Add(time.Millisecond)
		for _, n := range nets {
			n.Advance(now)
		}
		for i, s := range sessions {
			if ended[i] == nil {
				ended[i] = s.Update(now)
			}
		}
	}
	for i, err := range ended {
		if !errors.Is(err, rewind.ErrKicked) {
			t.Errorf("player %d after the host closed: %v, want ErrKicked", i, err)
		}
	}
}

// connectBots connects n sessions of testgame bots to a host, player i
// over dial(i), each checking every verified tick's hash against the
// host's (hashes); the sessions and their conns close at the test's end.
func connectBots(t *testing.T, hashes *testutil.HostHashes, n int, dial func(i int) (transport.Conn, error)) []*rewind.Session[testgame.Input] {
	t.Helper()
	var sessions []*rewind.Session[testgame.Input]
	for i := range n {
		conn, err := dial(i)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		var o rewind.Options
		o.Client.OnVerified = func(tick uint32, hash uint64) {
			if sh := hashes.Hash(tick); sh != hash {
				t.Errorf("player %d, tick %d: hash %016x, host %016x", i, tick, hash, sh)
			}
		}
		s, err := rewind.Connect[testgame.Input](&testgame.Game{}, conn, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(rewind.PlayerID(i), tick) })
		sessions = append(sessions, s)
	}
	return sessions
}
