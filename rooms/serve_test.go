package rooms_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport/webrtc"
	"github.com/rewindnet/rewind/world"
)

// tickHashes collects the hashes of every match of a host.Multi by tick
// (the matches share one server.Config, so one OnTick).
type tickHashes struct {
	mu sync.Mutex
	m  map[uint32]map[uint64]bool
}

func (th *tickHashes) OnTick(tick uint32, _ *world.World, hash uint64) {
	th.mu.Lock()
	defer th.mu.Unlock()
	if th.m == nil {
		th.m = map[uint32]map[uint64]bool{}
	}
	if th.m[tick] == nil {
		th.m[tick] = map[uint64]bool{}
	}
	th.m[tick][hash] = true
}

func (th *tickHashes) has(tick uint32, hash uint64) bool {
	th.mu.Lock()
	defer th.mu.Unlock()
	return th.m[tick][hash]
}

// TestServeRoomsOneConnection: a match server hosts ten rooms through
// one relay connection and one WebRTC host; two players join each of two
// rooms by code over WebRTC and verify ticks that hash as one of the
// server's matches at that tick, the players of a room agreeing with each
// other and the rooms' worlds differing. Rooms add no goroutine (the
// matches run on the workers); the figure per WebRTC player is logged.
func TestServeRoomsOneConnection(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url, rs := startRelayServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	var hashes tickHashes
	s, err := rooms.Serve[testgame.Input](ctx, &testgame.Game{}, rooms.ServeOptions{
		Relay: url, Rooms: 2, Codes: []string{"K3F9QX"}, MaxMatches: 10, Workers: 2,
		Server: server.Config{StartPlayers: 2, OnTick: hashes.OnTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	codes := s.Codes()
	if len(codes) != 2 || codes[0] != "K3F9QX" || codes[1] == codes[0] {
		t.Fatalf("codes %v", codes)
	}
	stopHost := testutil.RunHost(ctx, t, s)
	runtime.GC()
	before := runtime.NumGoroutine()
	for range 8 {
		if _, err := s.AddRoom(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AddRoom(ctx, ""); !errors.Is(err, roomproto.ErrFull) {
		t.Fatalf("an 11th room: %v, want roomproto.ErrFull", err)
	}
	if conns, rooms := rs.Stats(); conns != 1 || rooms != 10 {
		t.Fatalf("relay: %d connections, %d rooms; want 1 and 10", conns, rooms)
	}
	tenRooms := runtime.NumGoroutine()
	if tenRooms > before {
		t.Errorf("goroutines: %d with 2 rooms, %d with 10: a room should cost none", before, tenRooms)
	}

	// Two players in each of the first two rooms, each room's playing
	// differently (bots seeded apart).
	type result struct {
		room int
		hash uint64
	}
	var mu sync.Mutex
	var results []result
	var sessions []*rewind.Session[testgame.Input]
	for i := range 4 {
		room := i / 2
		var o rooms.JoinOptions
		o.Client.OnVerified = func(tick uint32, hash uint64) {
			if !hashes.has(tick, hash) {
				t.Errorf("player %d (room %d), tick %d: hash %016x is no match's on the server", i, room, tick, hash)
			}
			if tick == 60 {
				mu.Lock()
				results = append(results, result{room, hash})
				mu.Unlock()
			}
		}
		p, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, codes[room], o)
		if err != nil {
			t.Fatal(err)
		}
		seed := rewind.PlayerID(i % 2)
		if room == 1 {
			seed += 7
		}
		p.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(seed, tick) })
		sessions = append(sessions, p)
	}
	withPlayers := runtime.NumGoroutine()
	sctx, scancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i, p := range sessions {
		wg.Go(func() {
			if err := p.Run(sctx); err != nil {
				t.Errorf("player %d: %v", i, err)
			}
		})
	}
	testutil.WaitUntil(ctx, t, "every player's tick 60", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(results) == 4
	})
	st := s.Stats()
	scancel()
	wg.Wait()
	byRoom := map[int][]uint64{}
	for _, r := range results {
		byRoom[r.room] = append(byRoom[r.room], r.hash)
	}
	if a, b := byRoom[0], byRoom[1]; len(a) != 2 || len(b) != 2 || a[0] != a[1] || b[0] != b[1] || a[0] == b[0] {
		t.Errorf("tick 60 hashes by room: %x", byRoom)
	}
	if st.Rooms != 10 || st.Running != 2 || st.Players != 4 {
		t.Errorf("server stats: %+v", st)
	}
	t.Logf("goroutines: %d with 2 rooms, %d with 10 rooms, %d with 4 WebRTC players joined (both ends in this process): %.1f per player",
		before, tenRooms, withPlayers, float64(withPlayers-tenRooms)/4)
	for i, p := range sessions {
		if st := p.Stats(); st.Desyncs != 0 {
			t.Errorf("player %d: %+v", i, st)
		}
		p.Close()
	}
	stopHost()
	if err := s.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if _, rooms := rs.Stats(); rooms != 0 {
		t.Errorf("relay after close: %d rooms", rooms)
	}
}

// TestServeOnDemand: a match server with 2 slots that opens rooms on
// demand; three lobbies ask the relay for a room: two get one, the third
// is refused "full" with the count; after a match ends (its player
// left), its slot is free and a new room opens.
func TestServeOnDemand(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	testutil.SkipSockets(t)
	url, rs := startRelayServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	if _, err := roomclient.OpenRoom(ctx, url, roomclient.OpenOptions{}); !errors.Is(err, roomproto.ErrFull) {
		t.Fatalf("open with no match server: %v, want roomproto.ErrFull", err)
	}
	s, err := rooms.Serve[testgame.Input](ctx, &testgame.Game{}, rooms.ServeOptions{
		Relay: url, MaxMatches: 2, OnDemand: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stopHost := testutil.RunHost(ctx, t, s)
	var codes []string
	for range 2 {
		code, err := roomclient.OpenRoom(ctx, url, roomclient.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, code)
	}
	_, err = roomclient.OpenRoom(ctx, url, roomclient.OpenOptions{})
	var re *roomproto.Error
	if !errors.As(err, &re) || !errors.Is(err, roomproto.ErrFull) || re.Code != roomproto.ErrCodeFull || !strings.Contains(re.Reason, "2 of 2 slots in use") {
		t.Fatalf("third open: %v, want full with 2 of 2 slots in use", err)
	}
	if got := s.Rooms(); len(got) != 2 || got[0] != codes[0] || got[1] != codes[1] {
		t.Fatalf("server's rooms %v, opened %v", got, codes)
	}

	// A player plays in the first room and leaves: its match ends, the
	// room closes here and at the relay, and its slot takes a new room.
	p, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, codes[0], rooms.JoinOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pctx, pcancel := context.WithCancel(ctx)
	played := make(chan error, 1)
	go func() { played <- p.Run(pctx) }()
	testutil.WaitUntil(ctx, t, "20 verified ticks", func() bool { return p.Stats().Verified >= 20 })
	pcancel()
	if err := <-played; err != nil {
		t.Fatalf("player: %v", err)
	}
	p.Close()
	// Closed here, and then at the relay, which frees the slot once the
	// server's word reaches it (CI under load opened in between: full).
	testutil.WaitUntil(ctx, t, "the ended match's room to close", func() bool {
		_, open := rs.Stats()
		return len(s.Rooms()) == 1 && open == 1
	})
	code, err := roomclient.OpenRoom(ctx, url, roomclient.OpenOptions{})
	if err != nil {
		t.Fatalf("open after a match ended: %v", err)
	}
	if code == codes[0] || code == codes[1] {
		t.Fatalf("new room %s, had %v", code, codes)
	}
	if _, err := rooms.Dial(ctx, url, codes[0], webrtc.Config{}); !errors.Is(err, roomproto.ErrRoomEnded) {
		t.Errorf("joining the ended room: %v, want roomproto.ErrRoomEnded", err)
	}
	if st := s.Stats(); st.Rooms != 2 || st.Matches != 1 {
		t.Errorf("server stats: %+v", st)
	}
	stopHost()
}

// TestServeRoomsUDP: a match server in rooms with a UDP socket too: a
// player joins the second room by code over WebRTC, another connects
// over UDP naming that room in its hello, and both play the same match
// (verified hashes equal, as the server's); the first room stays empty.
func TestServeRoomsUDP(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := startRelay(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	var hashes tickHashes
	s, err := rooms.Serve[testgame.Input](ctx, &testgame.Game{}, rooms.ServeOptions{
		Relay: url, Rooms: 2, UDP: "127.0.0.1:0",
		Server: server.Config{StartPlayers: 2, OnTick: hashes.OnTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addr, ok := s.UDPAddr()
	if !ok {
		t.Fatal("no UDP address")
	}
	stopHost := testutil.RunHost(ctx, t, s)
	code := s.Codes()[1]
	var mu sync.Mutex
	at30 := map[string]uint64{}
	opts := func(name string) rewind.Options {
		var o rewind.Options
		o.Client.OnVerified = func(tick uint32, hash uint64) {
			if !hashes.has(tick, hash) {
				t.Errorf("%s, tick %d: hash %016x is no match's on the server", name, tick, hash)
			}
			if tick == 30 {
				mu.Lock()
				at30[name] = hash
				mu.Unlock()
			}
		}
		return o
	}
	byCode, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, code, rooms.JoinOptions{Options: opts("webrtc")})
	if err != nil {
		t.Fatal(err)
	}
	uo := rewind.UDPOptions{Options: opts("udp")}
	uo.Client.Room = code
	byUDP, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, addr.String(), uo)
	if err != nil {
		t.Fatal(err)
	}
	sctx, scancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i, p := range []*rewind.Session[testgame.Input]{byCode, byUDP} {
		p.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(rewind.PlayerID(i), tick) })
		wg.Go(func() {
			if err := p.Run(sctx); err != nil {
				t.Errorf("player %d: %v", i, err)
			}
		})
	}
	testutil.WaitUntil(ctx, t, "both players' tick 30", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(at30) == 2
	})
	scancel()
	wg.Wait()
	if at30["webrtc"] != at30["udp"] {
		t.Errorf("tick 30: webrtc %016x, udp %016x", at30["webrtc"], at30["udp"])
	}
	if st, _ := s.RoomStats(code); st.Match.Players != 2 {
		t.Errorf("room %s: %d players, want 2", code, st.Match.Players)
	}
	if st, _ := s.RoomStats(s.Codes()[0]); st.Running {
		t.Errorf("room %s runs a match: %+v", s.Codes()[0], st)
	}
	byCode.Close()
	byUDP.Close()
	stopHost()
}
