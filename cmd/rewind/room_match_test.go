package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// These tests play sand in a relay room over real pion peers on 127.0.0.1
// (ports chosen by the kernel), in real time: a rooms relay (with TURN) as
// `rewind relay` runs it, a rooms.Hosted as `rewind serve --relay` runs it,
// and players that join by the room code. Waits are bounded by a context
// (a hang guard, not a speed assertion).

// startTestRoomRelay serves the rooms relay and TURN as `rewind relay`
// does (newRoomRelay), on 127.0.0.1, until the end of the test.
func startTestRoomRelay(t *testing.T) (url string, rr *roomRelay) {
	t.Helper()
	testutil.SkipSockets(t)
	rr, err := newRoomRelay("127.0.0.1", roomRelayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	rr.mount(mux)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		rr.close()
		hs.Close()
	})
	return "ws" + strings.TrimPrefix(hs.URL, "http") + roomproto.Path, rr
}

// roomTestPlayer is a sand client joined by code, driven by a goroutine.
type roomTestPlayer struct {
	conn *rooms.Conn
	*sandTestClient
}

func joinTestRoom(ctx context.Context, t *testing.T, url, code string, cfg webrtc.Config) *roomTestPlayer {
	t.Helper()
	conn, err := rooms.Dial(ctx, url, code, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &roomTestPlayer{conn: conn, sandTestClient: startSandTestClient(t, conn, nil)}
}

// close stops driving the player, says bye and leaves the room.
func (p *roomTestPlayer) close(t *testing.T) {
	p.stop(t)
	p.closeClient()
	p.conn.Close()
}

// TestRoomMatchSand: a host and 3 players who join by the room code play
// 10 s of sand (600 ticks at 60 Hz) over WebRTC data channels, directly
// and forced through the relay's TURN server (ICE policy relay); every
// verified tick of every player hashes as the server's, and they end with
// equal hashes at a common verified tick. The two run side by side.
func TestRoomMatchSand(t *testing.T) {
	checkLeaks(t)
	for _, tc := range []struct {
		name     string
		turnOnly bool
	}{{"direct", false}, {"turn", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			playRoomMatch(t, tc.turnOnly)
		})
	}
}

func playRoomMatch(t *testing.T, turnOnly bool) {
	const players, ticks = 3, 600
	url, rr := startTestRoomRelay(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	hashes := newTestHashes()
	cfg := webrtc.Config{RelayOnly: turnOnly}
	h, err := rooms.Host[sand.Input](ctx, sand.New(sandTestGrid), rooms.HostOptions{
		Relay:  url,
		WebRTC: cfg,
		Server: server.Config{StartPlayers: players, OnTick: hashes.onTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	run := runTestHost(ctx, h)
	var ps []*roomTestPlayer
	for range players {
		ps = append(ps, joinTestRoom(ctx, t, url, h.Code(), cfg))
	}
	for i, p := range ps {
		l, r := p.conn.PathTypes()
		if turnOnly && l != "relay" {
			t.Errorf("player %d: path %s-%s, want a relay (TURN) candidate", i, l, r)
		}
		t.Logf("player %d: ICE path %s-%s", i, l, r) // direct here, unless ICE checks were slower than RelayAcceptanceMinWait
	}
	if turnOnly && rr.turn.Allocations() < players {
		t.Errorf("%d TURN allocations for %d players", rr.turn.Allocations(), players)
	}
	testutil.WaitUntil(ctx, t, "600 verified ticks", func() bool {
		for _, p := range ps {
			if p.stats().Verified < ticks {
				return false
			}
		}
		return true
	})
	common := ^uint32(0)
	for _, p := range ps {
		p.stop(t)
		common = min(common, p.stats().Verified)
	}
	want, ok := hashes.hash(common)
	for i, p := range ps {
		st := p.stats()
		if st.Desyncs != 0 {
			t.Errorf("player %d: %d desyncs", i, st.Desyncs)
		}
		checked := p.check(t, fmt.Sprint("player ", i), hashes.hash)
		if got, gok := p.hashAt(common); !ok || !gok || got != want {
			t.Errorf("player %d at the common tick %d: %016x (%v), server %016x (%v)", i, common, got, gok, want, ok)
		}
		t.Logf("player %d: verified %d (%d checked), rollbacks %d, ping %v", i, st.Verified, checked, st.Rollbacks, st.Ping)
	}
	if st := h.Stats(); st.Match.Joins != players || st.Peers != players {
		t.Errorf("host: %+v", st)
	}
	for _, p := range ps {
		p.close(t)
	}
	run.stop(t)
}

// TestRoomLateJoin: a player who joins a room's match after the server's
// history has moved past the start gets the world by transfer over its
// data channel, and verifies ticks that hash as the server's.
func TestRoomLateJoin(t *testing.T) {
	checkLeaks(t)
	url, _ := startTestRoomRelay(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hashes := newTestHashes()
	h, err := rooms.Host[sand.Input](ctx, sand.New(sandTestGrid), rooms.HostOptions{
		Relay:  url,
		Server: server.Config{History: 500 * time.Millisecond, OnTick: hashes.onTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	run := runTestHost(ctx, h)
	first := joinTestRoom(ctx, t, url, h.Code(), webrtc.Config{})
	testutil.WaitUntil(ctx, t, "the first player's 90 verified ticks", func() bool { return first.stats().Verified >= 90 })
	late := joinTestRoom(ctx, t, url, h.Code(), webrtc.Config{})
	var joinedAt uint32
	testutil.WaitUntil(ctx, t, "the late player's 60 verified ticks", func() bool {
		st := late.stats()
		if joinedAt == 0 && st.Verified > 0 {
			joinedAt = st.Verified
		}
		return joinedAt > 0 && st.Verified >= joinedAt+60
	})
	first.stop(t)
	late.stop(t)
	common := min(first.stats().Verified, late.stats().Verified)
	if joinedAt < 60 {
		t.Errorf("late player's first verified tick %d: it did not join late", joinedAt)
	}
	want, _ := hashes.hash(common)
	for i, p := range []*roomTestPlayer{first, late} {
		got, ok := p.hashAt(common)
		if !ok || got != want {
			t.Errorf("player %d at tick %d: %016x (%v), server %016x", i, common, got, ok, want)
		}
		p.check(t, fmt.Sprint("player ", i), hashes.hash)
		if st := p.stats(); st.Desyncs != 0 {
			t.Errorf("player %d: %+v", i, st)
		}
	}
	t.Logf("late player joined at verified tick %d; common tick %d", joinedAt, common)
	first.close(t)
	late.close(t)
	run.stop(t)
}
