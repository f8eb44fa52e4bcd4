package rooms_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/server"
)

// deadRelayURL is a relay URL on 127.0.0.1 whose port refuses
// connections.
func deadRelayURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "ws://" + addr + roomproto.Path
}

// TestJoinRelayListMigrates: two relays sharing a Redis and a dead URL
// first in every list. A host with migration registers past the dead
// URL at relay A; one player joins past it through A, the other through
// B (stood in at A). Relay A dies without a word to the fleet, then the
// host goes: both players claim the room through their lists, past A
// and the dead URL, at B, which adopts the room once A is found dead:
// one player hosts the match, the other rejoins it with its id, and
// they verify the same hashes 60 ticks past the old host's last.
func TestJoinRelayListMigrates(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	redisURL := testutil.StartRedis(t)
	log := testutil.DebugLog(t)
	cfg, rcfg := relay.RoomConfig{TickInterval: 50 * time.Millisecond, HostTimeout: 15 * time.Second, Log: log},
		roomdir.RedisConfig{TTL: 2 * time.Second}
	a := startFleetRelay(t, redisURL, cfg, rcfg)
	b := startFleetRelay(t, redisURL, cfg, rcfg)
	dead := deadRelayURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
	defer cancel()
	h, err := rooms.Host(ctx, &testgame.Game{}, rooms.HostOptions{Relay: dead, Relays: []string{a.url}, HostMigration: true,
		Server: server.Config{StartPlayers: 2, PlayerTimeout: 15 * time.Second}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if h.Relay() != a.url {
		t.Fatalf("hosted at %s, want %s", h.Relay(), a.url)
	}
	stopHost := testutil.RunHost(ctx, t, h)
	type seat struct {
		s   *rewind.Session[testgame.Input]
		log *verifiedLog
		id  rewind.PlayerID
	}
	var seats []*seat
	var running sync.WaitGroup
	t.Cleanup(func() { // before the leak check, also after a failure
		cancel()
		for _, st := range seats {
			st.s.Close()
		}
		running.Wait()
	})
	for i, more := range [][]string{{a.url, b.url}, {b.url}} {
		vlog := &verifiedLog{m: map[uint32]uint64{}}
		s, err := rooms.Join(ctx, &testgame.Game{}, dead, h.Code(), rooms.JoinOptions{Relays: more, HostMigration: true,
			Options: rewind.Options{Client: rewind.ClientConfig{OnVerified: vlog.add, ServerTimeout: 15 * time.Second}},
			Server:  server.Config{PlayerTimeout: 15 * time.Second},
			Log:     log.With("seat", i)})
		if err != nil {
			t.Fatalf("player %d: %v", i, err)
		}
		s.SetInputFunc(func(u uint32) testgame.Input { return testgame.Bot(rewind.PlayerID(i), u) })
		seats = append(seats, &seat{s: s, log: vlog})
		running.Add(1)
		go func() {
			defer running.Done()
			_ = s.Run(ctx)
		}()
	}
	everyone := func(what string, ok func(*seat) bool) {
		t.Helper()
		testutil.WaitUntil(ctx, t, what, func() bool {
			for _, st := range seats {
				if !ok(st) {
					return false
				}
			}
			return true
		})
	}
	everyone("every player past tick 60", func(st *seat) bool { return st.s.Stats().Verified >= 60 })
	for _, st := range seats {
		st.id, _ = st.s.Player()
	}

	a.crash()
	stopHost()
	h.Close()
	last := h.Stats().Match.Tick
	everyone("every player migrated, 120 ticks past the old host's last", func(st *seat) bool {
		return st.s.Migrations() == 1 && st.s.Stats().Verified >= last+120
	})
	hosts := 0
	for i, st := range seats {
		if id, _ := st.s.Player(); id != st.id {
			t.Fatalf("player %d was id %d, is %d", i, st.id, id)
		}
		if st.s.Hosting() {
			hosts++
		}
	}
	if hosts != 1 {
		t.Fatalf("%d players host", hosts)
	}
	if _, rooms := b.rs.Stats(); rooms != 1 {
		t.Fatalf("relay B holds %d rooms, want the migrated one", rooms)
	}
	from := last + 60
	for _, st := range seats {
		first, ok := st.log.firstAfter(last + 59)
		if !ok {
			t.Fatalf("a player verified no tick after %d", last+59)
		}
		from = max(from, first)
	}
	everyone("every player 60 ticks past the window's start", func(st *seat) bool { return st.s.Stats().Verified >= from+60 })
	for tick := from; tick < from+60; tick++ {
		x, okX := seats[0].log.get(tick)
		y, okY := seats[1].log.get(tick)
		if !okX || !okY || x != y {
			t.Fatalf("tick %d after the migration: %x (%v), %x (%v)", tick, x, okX, y, okY)
		}
	}
	for _, st := range seats {
		if !st.s.Hosting() {
			st.s.Close()
		}
	}
	for _, st := range seats {
		st.s.Close()
	}
	cancel()
	running.Wait()
}
