package rooms_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// startRelay serves a rooms relay without TURN on 127.0.0.1 until the end
// of the test and returns its URL.
func startRelay(t *testing.T) string {
	t.Helper()
	testutil.SkipSockets(t)
	url, _ := startRelayServer(t)
	return url
}

func startRelayServer(t *testing.T) (string, *relay.RoomServer) {
	t.Helper()
	return startRelayWith(t, relay.RoomConfig{})
}

// startRelayWith serves a rooms relay configured by cfg, as
// startRelayServer.
func startRelayWith(t *testing.T, cfg relay.RoomConfig) (string, *relay.RoomServer) {
	t.Helper()
	testutil.SkipSockets(t)
	rs := relay.NewRoomServer(cfg)
	mux := http.NewServeMux()
	mux.Handle(roomproto.Path, rs)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		rs.Close()
		hs.Close()
	})
	return "ws" + strings.TrimPrefix(hs.URL, "http") + roomproto.Path, rs
}

// TestHostRoomBothWays hosts a match in a room with a UDP socket too, over
// real pion peers and a real relay on 127.0.0.1: one player joins by the
// room code, one connects over UDP, and both verify ticks that hash as the
// server's. A wrong code is refused with roomproto.ErrNoRoom.
func TestHostRoomBothWays(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := startRelay(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard
	defer cancel()

	hashes := testutil.NewHostHashes()
	h, err := rooms.Host[testgame.Input](ctx, &testgame.Game{}, rooms.HostOptions{
		Relay:  url,
		UDP:    "127.0.0.1:0",
		Server: server.Config{StartPlayers: 2, OnTick: hashes.OnTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Code()) != roomcode.DefaultLen {
		t.Fatalf("room code %q", h.Code())
	}
	udpAddr, ok := h.UDPAddr()
	if !ok {
		t.Fatal("no UDP address")
	}
	stopHost := testutil.RunHost(ctx, t, h)

	if _, err := rooms.Dial(ctx, url, "ZZZZZZ", webrtc.Config{}); !errors.Is(err, roomproto.ErrNoRoom) {
		t.Fatalf("wrong code: %v, want roomproto.ErrNoRoom", err)
	}

	check := func(name string) rewind.Options {
		var o rewind.Options
		o.Client.OnVerified = func(tick uint32, hash uint64) {
			if sh := hashes.Hash(tick); sh != hash {
				t.Errorf("%s, tick %d: hash %016x, server %016x", name, tick, hash, sh)
			}
		}
		return o
	}
	byCode, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, strings.ToLower(h.Code()), rooms.JoinOptions{Options: check("room player")})
	if err != nil {
		t.Fatal(err)
	}
	byUDP, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, udpAddr.String(), rewind.UDPOptions{Options: check("udp player")})
	if err != nil {
		t.Fatal(err)
	}
	sessions := []*rewind.Session[testgame.Input]{byCode, byUDP}
	var wg sync.WaitGroup
	sctx, scancel := context.WithCancel(ctx)
	for i, s := range sessions {
		s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(rewind.PlayerID(i), tick) })
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Run(sctx); err != nil {
				t.Errorf("player %d: %v", i, err)
			}
		}()
	}
	// Play until both have verified 60 ticks (1 s of match time).
	testutil.WaitUntil(ctx, t, "both players' 60 verified ticks", func() bool {
		return byCode.Stats().Verified >= 60 && byUDP.Stats().Verified >= 60
	})
	scancel()
	wg.Wait()
	st := h.Stats()
	if st.Match.Joins != 2 || st.Peers != 1 || st.UDP.DatagramsIn == 0 {
		t.Errorf("host stats: %+v", st)
	}
	for i, s := range sessions {
		if st := s.Stats(); st.Verified < 60 || st.Desyncs != 0 {
			t.Errorf("player %d: %+v", i, st)
		}
		if err := s.Close(); err != nil {
			t.Errorf("player %d close: %v", i, err)
		}
	}
	stopHost()
	if err := h.Close(); err != nil {
		t.Errorf("host close: %v", err)
	}
}

// TestRoomMatchOutlivesRelay: match traffic goes straight between player
// and host, so a match goes on when the relay goes away; the host notices
// (Room().Done) and keeps running.
func TestRoomMatchOutlivesRelay(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url, rs := startRelayServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard
	defer cancel()
	h, err := rooms.Host[testgame.Input](ctx, &testgame.Game{}, rooms.HostOptions{Relay: url})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	stopHost := testutil.RunHost(ctx, t, h)
	s, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, h.Code(), rooms.JoinOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sctx, scancel := context.WithCancel(ctx)
	playerDone := make(chan error, 1)
	go func() { playerDone <- s.Run(sctx) }()
	testutil.WaitUntil(ctx, t, "20 verified ticks", func() bool { return s.Stats().Verified >= 20 })
	rs.Close()
	testutil.WaitUntil(ctx, t, "the host to see the relay go", func() bool {
		select {
		case <-h.Room().Done():
			return true
		default:
			return false
		}
	})
	after := s.Stats().Verified
	testutil.WaitUntil(ctx, t, "40 more verified ticks", func() bool { return s.Stats().Verified >= after+40 })
	scancel()
	if err := <-playerDone; err != nil {
		t.Errorf("player: %v", err)
	}
	stopHost()
	if st := s.Stats(); st.Desyncs != 0 {
		t.Errorf("player: %+v", st)
	}
}
