package rewind_test

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
	"github.com/rewindnet/rewind/internal/testgame"
	"github.com/rewindnet/rewind/internal/testutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/webrtc"
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

// hostHashes records a host's hash of every tick of its first match
// (onTick is its server.Config.OnTick). It is safe for concurrent use.
type hostHashes struct {
	mu sync.Mutex
	m  map[uint32]uint64
}

func newHostHashes() *hostHashes { return &hostHashes{m: map[uint32]uint64{}} }

func (hh *hostHashes) onTick(tick uint32, _ *world.World, hash uint64) {
	hh.mu.Lock()
	if _, ok := hh.m[tick]; !ok { // the first match only
		hh.m[tick] = hash
	}
	hh.mu.Unlock()
}

// hash returns the host's hash of tick (0 if it did not run it).
func (hh *hostHashes) hash(tick uint32) uint64 {
	hh.mu.Lock()
	defer hh.mu.Unlock()
	return hh.m[tick]
}

// runHost runs h (a UDPHost or a RoomHost) in a goroutine until stop,
// which waits for Run to return and fails the test if it failed.
func runHost(ctx context.Context, t *testing.T, h interface{ Run(context.Context) error }) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	return func() {
		t.Helper()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("host: %v", err)
		}
	}
}

// startRelay serves a rooms relay without TURN on 127.0.0.1 until the end
// of the test and returns its URL.
func startRelay(t *testing.T) string {
	t.Helper()
	url, _ := startRelayServer(t)
	return url
}

func startRelayServer(t *testing.T) (string, *relay.RoomServer) {
	t.Helper()
	rs := relay.NewRoomServer(relay.RoomConfig{})
	mux := http.NewServeMux()
	mux.Handle(relay.RoomPath, rs)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		rs.Close()
		hs.Close()
	})
	return "ws" + strings.TrimPrefix(hs.URL, "http") + relay.RoomPath, rs
}

// TestHostRoomBothWays hosts a match in a room with a UDP socket too, over
// real pion peers and a real relay on 127.0.0.1: one player joins by the
// room code, one connects over UDP, and both verify ticks that hash as the
// server's. A wrong code is refused with relay.ErrNoRoom.
func TestHostRoomBothWays(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := startRelay(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard
	defer cancel()

	hashes := newHostHashes()
	h, err := rewind.HostRoom[testgame.Input](ctx, &testgame.Game{}, rewind.RoomHostOptions{
		Relay:  url,
		UDP:    "127.0.0.1:0",
		Server: server.Config{StartPlayers: 2, OnTick: hashes.onTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Code()) != 6 {
		t.Fatalf("room code %q", h.Code())
	}
	udpAddr, ok := h.UDPAddr()
	if !ok {
		t.Fatal("no UDP address")
	}
	stopHost := runHost(ctx, t, h)

	if _, err := rewind.DialRoom(ctx, url, "ZZZZZZ", webrtc.Config{}); !errors.Is(err, relay.ErrNoRoom) {
		t.Fatalf("wrong code: %v, want relay.ErrNoRoom", err)
	}

	check := func(name string) rewind.Options {
		var o rewind.Options
		o.Client.OnVerified = func(tick uint32, hash uint64) {
			if sh := hashes.hash(tick); sh != hash {
				t.Errorf("%s, tick %d: hash %016x, server %016x", name, tick, hash, sh)
			}
		}
		return o
	}
	byCode, err := rewind.JoinRoom[testgame.Input](ctx, &testgame.Game{}, url, strings.ToLower(h.Code()), rewind.RoomOptions{Options: check("room player")})
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
	h, err := rewind.HostRoom[testgame.Input](ctx, &testgame.Game{}, rewind.RoomHostOptions{Relay: url})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	stopHost := runHost(ctx, t, h)
	s, err := rewind.JoinRoom[testgame.Input](ctx, &testgame.Game{}, url, h.Code(), rewind.RoomOptions{})
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
