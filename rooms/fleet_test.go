package rooms_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/server"
)

// fleetRelay is a relay of a test's fleet (relays sharing one Redis).
type fleetRelay struct {
	url string
	rs  *relay.RoomServer
	// crash stops the relay as a process that dies would: its Redis
	// connection first (it tells the fleet nothing), then every
	// WebSocket.
	crash func()
}

// startFleetRelay serves a relay on 127.0.0.1 whose directory is the
// Redis at redisURL, until the end of the test.
func startFleetRelay(t *testing.T, redisURL string, cfg relay.RoomConfig, rcfg roomdir.RedisConfig) fleetRelay {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dir, err := roomdir.NewRedis(ctx, redisURL, rcfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Directory = dir
	rs := relay.NewRoomServer(cfg)
	mux := http.NewServeMux()
	mux.Handle(roomproto.Path, rs)
	hs := httptest.NewServer(mux)
	var once sync.Once
	stop := func(dirFirst bool) {
		once.Do(func() {
			if dirFirst {
				dir.Close()
			}
			rs.Close()
			hs.CloseClientConnections()
			hs.Close()
			dir.Close()
		})
	}
	t.Cleanup(func() { stop(false) })
	return fleetRelay{url: "ws" + strings.TrimPrefix(hs.URL, "http") + roomproto.Path, rs: rs,
		crash: func() { stop(true) }}
}

// verifiedTicks counts a player's verified ticks, checking each hash
// against the server's matches.
type verifiedTicks struct {
	mu   sync.Mutex
	last uint32
}

func (v *verifiedTicks) options(t *testing.T, name string, hashes *tickHashes) rewind.Options {
	var o rewind.Options
	o.Client.OnVerified = func(tick uint32, hash uint64) {
		if !hashes.has(tick, hash) {
			t.Errorf("%s, tick %d: hash %016x is no match's on the server", name, tick, hash)
		}
		v.mu.Lock()
		v.last = max(v.last, tick)
		v.mu.Unlock()
	}
	return o
}

func (v *verifiedTicks) tick() uint32 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.last
}

// TestServeOnDemandFleet: two relays sharing a Redis, a match server
// taking rooms on demand connected to the first; a lobby asks the second
// for a room: the second has no match server, so it places the room
// through Redis on the first's server and hands the lobby its code and
// key; a player joins the room through the second relay and plays
// verified ticks (each one of the server's hashes); the lobby's end,
// through the second relay, closes the room on the server.
func TestServeOnDemandFleet(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	redisURL := testutil.StartRedis(t)
	cfg, rcfg := relay.RoomConfig{TickInterval: 50 * time.Millisecond}, roomdir.RedisConfig{TTL: 3 * time.Second}
	a := startFleetRelay(t, redisURL, cfg, rcfg)
	b := startFleetRelay(t, redisURL, cfg, rcfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	var hashes tickHashes
	s, err := rooms.Serve[testgame.Input](ctx, &testgame.Game{}, rooms.ServeOptions{
		Relay: a.url, MaxMatches: 2, OnDemand: true, Server: server.Config{OnTick: hashes.OnTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stopHost := testutil.RunHost(ctx, t, s)
	var opened roomclient.OpenedRoom
	testutil.WaitUntil(ctx, t, "a room opened through the second relay", func() bool {
		// Until the first relay has published its server's slots (at
		// once, but through Redis), the second answers full.
		opened, err = roomclient.OpenRoomWithKey(ctx, b.url, roomclient.OpenOptions{})
		return err == nil
	})
	if got := s.Rooms(); len(got) != 1 || got[0] != opened.Code || len(opened.Key) != 32 {
		t.Fatalf("server's rooms %v, the lobby got %+v", got, opened)
	}
	var v verifiedTicks
	p, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, b.url, opened.Code, rooms.JoinOptions{Options: v.options(t, "player", &hashes)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(0, tick) })
	stopPlayer := testutil.RunHost(ctx, t, p)
	testutil.WaitUntil(ctx, t, "30 verified ticks", func() bool { return v.tick() >= 30 })
	stopPlayer()
	if st := b.rs.MatchServers(); st.Forwarded < 1 || st.Servers != 0 {
		t.Errorf("the lobby's relay: %+v, want the open forwarded", st)
	}
	if err := roomclient.EndRoom(ctx, b.url, opened.Code, opened.Key); err != nil {
		t.Fatalf("the lobby's end: %v", err)
	}
	testutil.WaitUntil(ctx, t, "the room to close on the server", func() bool { return len(s.Rooms()) == 0 })
	stopHost()
}

// TestServeRelayDies: a match server's relay dies (killed: it tells the
// fleet nothing). The server registers again at the other relay of the
// fleet and claims its room back under the same code (adopted from the
// dead relay once it is found dead); a new player joins the code through
// the live relay and plays verified ticks in the same match, while the
// players who joined before (one through each relay) keep playing over
// their data channels.
func TestServeRelayDies(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	redisURL := testutil.StartRedis(t)
	cfg, rcfg := relay.RoomConfig{TickInterval: 50 * time.Millisecond}, roomdir.RedisConfig{TTL: 2 * time.Second}
	a := startFleetRelay(t, redisURL, cfg, rcfg)
	b := startFleetRelay(t, redisURL, cfg, rcfg)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second) // a hang guard
	defer cancel()
	var hashes tickHashes
	s, err := rooms.Serve[testgame.Input](ctx, &testgame.Game{}, rooms.ServeOptions{
		Relay: a.url, Relays: []string{b.url}, Reconnect: 20 * time.Second, Rooms: 1,
		Server: server.Config{OnTick: hashes.OnTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stopHost := testutil.RunHost(ctx, t, s)
	code := s.Codes()[0]
	var ticks [3]verifiedTicks
	var stops []func()
	play := func(i int, url string) {
		t.Helper()
		p, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, code, rooms.JoinOptions{Options: ticks[i].options(t, "player "+strconv.Itoa(i), &hashes)})
		if err != nil {
			t.Fatalf("player %d: %v", i, err)
		}
		p.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(rewind.PlayerID(i), tick) })
		stop := testutil.RunHost(ctx, t, p)
		stops = append(stops, func() { stop(); p.Close() })
	}
	play(0, a.url) // through the server's relay
	play(1, b.url) // through the other one (stood in at the first)
	testutil.WaitUntil(ctx, t, "both players' 30 verified ticks", func() bool { return ticks[0].tick() >= 30 && ticks[1].tick() >= 30 })

	a.crash()
	start := time.Now()
	at := [2]uint32{ticks[0].tick(), ticks[1].tick()}
	testutil.WaitUntil(ctx, t, "the server registered at the live relay", func() bool { return s.Relay().URL() == b.url })
	testutil.WaitUntil(ctx, t, "the room claimed back at the live relay", func() bool {
		_, rooms := b.rs.Stats()
		return rooms == 1
	})
	t.Logf("the room was claimed back %v after its relay died (TTL %v)", time.Since(start), rcfg.TTL)
	play(2, b.url)
	testutil.WaitUntil(ctx, t, "the new player's 30 verified ticks", func() bool { return ticks[2].tick() >= 30 })
	testutil.WaitUntil(ctx, t, "the first players' 60 more verified ticks", func() bool {
		return ticks[0].tick() >= at[0]+60 && ticks[1].tick() >= at[1]+60
	})
	if st, _ := s.RoomStats(code); st.Match.Players != 3 {
		t.Errorf("room %s: %d players, want 3", code, st.Match.Players)
	}
	for _, stop := range stops {
		stop()
	}
	stopHost()
}
