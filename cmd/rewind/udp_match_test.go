package main

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport/udp"
)

// These tests play sand over real UDP sockets on 127.0.0.1 (port 0), in
// real time: a rewind.Host over UDP and clients of package client, each driven by its
// own goroutine as `rewind serve` and `rewind play` drive them. Every
// verified tick of every client is checked against the server's hash of
// that tick. Waits are bounded by a context (a hang guard, not a speed
// assertion).

// udpTestHost is a rewind.Host over UDP running in a goroutine, recording the full
// hash of every tick of its (first) match.
type udpTestHost struct {
	h *rewind.Host[sand.Input]
	*testHashes
	*testHostRun
}

func startUDPTestHost(t *testing.T, cfg server.Config, udp udp.Config) *udpTestHost {
	t.Helper()
	testutil.SkipSockets(t)
	th := &udpTestHost{testHashes: newTestHashes()}
	cfg.OnTick = th.onTick
	h, err := rewind.HostUDP[sand.Input](sand.New(sandTestGrid), "127.0.0.1:0", rewind.HostOptions{Server: cfg, UDP: udp})
	if err != nil {
		t.Fatal(err)
	}
	th.h = h
	th.testHostRun = runTestHost(context.Background(), h)
	return th
}

// addr is the host's UDP address, "127.0.0.1:PORT".
func (th *udpTestHost) addr() string {
	a, _ := th.h.UDPAddr() // HostUDP's host has one
	return a.String()
}

// udpTestPlayer is a sand client over a real UDP socket, driven by a
// goroutine until stopped (vanish: without a bye) or closed (with one).
type udpTestPlayer struct {
	conn *udp.Client
	*sandTestClient
}

func startUDPTestPlayer(t *testing.T, addr string) *udpTestPlayer {
	t.Helper()
	return startUDPTestPlayerCookie(t, addr, nil)
}

// startUDPTestPlayerCookie starts a player that says hello with a rejoin
// cookie (none if nil).
func startUDPTestPlayerCookie(t *testing.T, addr string, cookie []byte) *udpTestPlayer {
	t.Helper()
	testutil.SkipSockets(t)
	conn, err := udp.Dial(addr, udp.Config{HandshakeTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return &udpTestPlayer{conn: conn, sandTestClient: startSandTestClient(t, conn, cookie)}
}

// close says bye and closes the socket.
func (p *udpTestPlayer) close() {
	p.closeClient()
	p.conn.Close()
}

// startUDPTestPair starts a host with cfg and two players, and waits
// until both have verified tick 30.
func startUDPTestPair(ctx context.Context, t *testing.T, cfg server.Config) (th *udpTestHost, addr string, a, b *udpTestPlayer) {
	t.Helper()
	th = startUDPTestHost(t, cfg, udp.Config{})
	addr = th.addr()
	a, b = startUDPTestPlayer(t, addr), startUDPTestPlayer(t, addr)
	testutil.WaitUntil(ctx, t, "both players to verify tick 30", func() bool {
		return a.stats().Verified >= 30 && b.stats().Verified >= 30
	})
	return th, addr, a, b
}

// TestUDPMatchThreePlayers plays a 3-player sand match over UDP for a few
// seconds: every verified tick of every player equals the server's, and
// all end with equal hashes at a common tick.
func TestUDPMatchThreePlayers(t *testing.T) {
	checkLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	th := startUDPTestHost(t, server.Config{StartPlayers: 3}, udp.Config{})
	addr := th.addr()
	var ps []*udpTestPlayer
	for range 3 {
		ps = append(ps, startUDPTestPlayer(t, addr))
	}
	const until = 180 // 3 s at 60 Hz
	testutil.WaitUntil(ctx, t, "every player to verify the common tick", func() bool {
		for _, p := range ps {
			if _, ok := p.hashAt(until); !ok {
				return false
			}
		}
		return true
	})
	for _, p := range ps {
		p.stop(t)
	}
	want, ok := th.hash(until)
	if !ok {
		t.Fatalf("server has no tick %d", until)
	}
	for i, p := range ps {
		if h, _ := p.hashAt(until); h != want {
			t.Errorf("player %d: tick %d hash %016x, server %016x", i, until, h, want)
		}
		if n := p.check(t, fmt.Sprint("player ", i), th.hash); n < until {
			t.Errorf("player %d verified %d ticks, want >= %d", i, n, until)
		}
		if st := p.stats(); st.Desyncs != 0 {
			t.Errorf("player %d: %d desyncs", i, st.Desyncs)
		}
	}
	if st := th.h.Stats(); st.Total.Joins != 3 || st.Matches != 1 {
		t.Errorf("host: %d joins in %d matches, want 3 in 1", st.Total.Joins, st.Matches)
	}
	for _, p := range ps {
		p.close()
	}
	th.stop(t)
}

// TestUDPVanishedPlayerDropped: a player that stops without a word is
// dropped after the (shortened) player timeout, every machine sees it
// leave, and the match goes on for the others.
func TestUDPVanishedPlayerDropped(t *testing.T) {
	checkLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	th, addr, a, b := startUDPTestPair(ctx, t, server.Config{StartPlayers: 2, PlayerTimeout: time.Second})
	b.stop(t) // vanishes: no bye, no keep-alive
	bid, _ := b.c.Player()
	bcookie, _ := b.c.Cookie()
	testutil.WaitUntil(ctx, t, "the vanished player to be dropped", func() bool {
		st := th.h.Stats()
		return st.Total.Leaves == 1 && st.Match.Players == 1
	})
	at := th.h.Stats().Match.Tick
	testutil.WaitUntil(ctx, t, "the remaining player to verify 60 more ticks", func() bool {
		return a.stats().Verified >= at+60
	})
	// It comes back from a new socket with its cookie: the same player,
	// from the world of the tick it is welcomed at.
	back := startUDPTestPlayerCookie(t, addr, bcookie[:])
	rejoinAt := th.h.Stats().Match.Tick
	testutil.WaitUntil(ctx, t, "the player to rejoin with its cookie and verify 30 ticks", func() bool {
		return back.stats().Verified >= rejoinAt+30
	})
	back.stop(t)
	if id, _ := back.c.Player(); id != bid {
		t.Errorf("rejoined as player %d, was %d", id, bid)
	}
	if n := back.check(t, "rejoined player", th.hash); n < 30 {
		t.Errorf("rejoined player verified %d ticks", n)
	}
	back.close()
	a.stop(t)
	if n := a.check(t, "remaining player", th.hash); n < int(at)+60 {
		t.Errorf("remaining player verified %d ticks", n)
	}
	b.check(t, "vanished player", th.hash)
	if st := a.stats(); st.Desyncs != 0 {
		t.Errorf("%d desyncs", st.Desyncs)
	}
	if st := th.h.Stats().UDP; st.EndedIdle != 1 {
		t.Errorf("UDP sessions ended idle: %d, want 1", st.EndedIdle)
	}
	a.close()
	b.close()
	th.stop(t)
}

// TestUDPMalformedDatagrams: garbage at the UDP framing (from a stranger)
// and inside a session (from a player) is counted and dropped, and the
// match goes on with every verified tick equal to the server's.
func TestUDPMalformedDatagrams(t *testing.T) {
	checkLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	th, addr, a, b := startUDPTestPair(ctx, t, server.Config{StartPlayers: 2})
	// A stranger's garbage: bad type bytes, truncated frames, an unpadded
	// hello, nothing at all.
	raw, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	junk := [][]byte{{0xff}, {0x10, 1, 2}, {0x01, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0}, {}, {0x12}, make([]byte, 1500)}
	for i := range 20 {
		if _, err := raw.Write(junk[i%len(junk)]); err != nil {
			t.Fatal(err)
		}
	}
	// A player's garbage, inside its session: the match drops it.
	b.mu.Lock()
	for i := range 20 {
		if err := b.conn.Send(b.conn.RemoteAddr(), []byte{byte(i * 37), 0xee, 0xdd, byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	b.mu.Unlock()
	testutil.WaitUntil(ctx, t, "the garbage to be counted", func() bool {
		st := th.h.Stats()
		return st.UDP.Malformed >= 20 && st.Total.BadDatagrams >= 20
	})
	at := th.h.Stats().Match.Tick
	testutil.WaitUntil(ctx, t, "both players to verify 60 more ticks", func() bool {
		return a.stats().Verified >= at+60 && b.stats().Verified >= at+60
	})
	a.stop(t)
	b.stop(t)
	a.check(t, "player a", th.hash)
	b.check(t, "player b", th.hash)
	if st := th.h.Stats(); st.Total.Leaves != 0 || st.Match.Players != 2 {
		t.Errorf("garbage cost a player: %d leaves, %d players", st.Total.Leaves, st.Match.Players)
	}
	a.close()
	b.close()
	th.stop(t)
}
