package rooms_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/server"
)

// TestHostRelayDiesReclaims: a one-room host with host migration, its
// room registered at relay A of a two-relay fleet (a real redis-server,
// loopback), one player joined through A and one through B. Relay A
// dies without a word to the fleet. The host claims its room back
// through its relay list at B (adopted from A once A is found dead): a
// new player joins the same code through B and plays verified ticks in
// the same match, and the first two players play on over their data
// channels without migrating.
func TestHostRelayDiesReclaims(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	redisURL := testutil.StartRedis(t)
	cfg, rcfg := relay.RoomConfig{TickInterval: 50 * time.Millisecond}, roomdir.RedisConfig{TTL: 2 * time.Second}
	a := startFleetRelay(t, redisURL, cfg, rcfg)
	b := startFleetRelay(t, redisURL, cfg, rcfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
	defer cancel()
	var hashes tickHashes
	h, err := rooms.Host(ctx, &testgame.Game{}, rooms.HostOptions{Relay: a.url, Relays: []string{b.url}, HostMigration: true,
		Server: server.Config{OnTick: hashes.OnTick, PlayerTimeout: 15 * time.Second}, Log: testutil.DebugLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	stopHost := testutil.RunHost(ctx, t, h)
	var ticks [3]verifiedTicks
	var sessions []*rewind.Session[testgame.Input]
	var stops []func()
	play := func(i int, url string) {
		t.Helper()
		s, err := rooms.Join(ctx, &testgame.Game{}, url, h.Code(), rooms.JoinOptions{HostMigration: true,
			Options: ticks[i].options(t, "player "+strconv.Itoa(i), &hashes)})
		if err != nil {
			t.Fatalf("player %d: %v", i, err)
		}
		s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(rewind.PlayerID(i), tick) })
		stop := testutil.RunHost(ctx, t, s)
		sessions = append(sessions, s)
		stops = append(stops, func() { stop(); s.Close() })
	}
	play(0, a.url) // through the host's relay
	play(1, b.url) // through the other one (stood in at A)
	testutil.WaitUntil(ctx, t, "both players' 30 verified ticks", func() bool { return ticks[0].tick() >= 30 && ticks[1].tick() >= 30 })

	a.crash()
	start := time.Now()
	at := [2]uint32{ticks[0].tick(), ticks[1].tick()}
	testutil.WaitUntil(ctx, t, "the room claimed back at the live relay", func() bool {
		_, rooms := b.rs.Stats()
		return h.Relay() == b.url && rooms == 1
	})
	t.Logf("the room was claimed back %v after its relay died (TTL %v)", time.Since(start), rcfg.TTL)
	play(2, b.url)
	testutil.WaitUntil(ctx, t, "the new player's 30 verified ticks", func() bool { return ticks[2].tick() >= 30 })
	testutil.WaitUntil(ctx, t, "the first players' 60 more verified ticks", func() bool {
		return ticks[0].tick() >= at[0]+60 && ticks[1].tick() >= at[1]+60
	})
	if st := h.Stats(); st.Match.Players != 3 {
		t.Errorf("the match has %d players, want 3", st.Match.Players)
	}
	for i, s := range sessions {
		if s.Migrations() != 0 || s.Hosting() {
			t.Errorf("player %d migrated (%d, hosting %v): its host never went", i, s.Migrations(), s.Hosting())
		}
	}
	for _, stop := range stops {
		stop()
	}
	stopHost()
}
