package rooms_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/server"
)

// TestSpectatorJoinsFullRoom: a room whose match takes one player
// (MaxPlayers 1, which also caps the room at the relay) and has it still
// takes a spectator by its code (rooms.Join with Client.Spectate: the
// relay counts it as a spectator), which verifies ticks that hash as the
// server's; another player is refused with roomproto.ErrRoomFull. Real pion
// peers and a real relay on 127.0.0.1.
func TestSpectatorJoinsFullRoom(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	url := startRelay(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard
	defer cancel()
	hashes := testutil.NewHostHashes()
	h, err := rooms.Host[testgame.Input](ctx, &testgame.Game{}, rooms.HostOptions{
		Relay:  url,
		Server: server.Config{MaxPlayers: 1, StartPlayers: 1, OnTick: hashes.OnTick},
	})
	if err != nil {
		t.Fatal(err)
	}
	stopHost := testutil.RunHost(ctx, t, h)
	var bad sync.Once
	opts := func(spectate bool) rooms.JoinOptions {
		var o rooms.JoinOptions
		o.Client.Spectate = spectate
		o.Client.OnVerified = func(tick uint32, hash uint64) {
			if sh := hashes.Hash(tick); sh != hash {
				bad.Do(func() { t.Errorf("spectate %v, tick %d: hash %016x, server %016x", spectate, tick, hash, sh) })
			}
		}
		return o
	}
	defer h.Close()
	player, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, h.Code(), opts(false))
	if err != nil {
		t.Fatal(err)
	}
	defer player.Close() // on a failure's way out (Close again is a no-op)
	player.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(0, tick) })
	spec, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, h.Code(), opts(true))
	if err != nil {
		t.Fatalf("spectator in a room full of players: %v", err)
	}
	defer spec.Close()
	if _, err := rooms.Join[testgame.Input](ctx, &testgame.Game{}, url, h.Code(), opts(false)); !errors.Is(err, roomproto.ErrRoomFull) {
		t.Errorf("a second player: %v, want roomproto.ErrRoomFull", err)
	}
	sessions := []*rewind.Session[testgame.Input]{player, spec}
	var wg sync.WaitGroup
	sctx, scancel := context.WithCancel(ctx)
	for i, s := range sessions {
		wg.Go(func() {
			if err := s.Run(sctx); err != nil {
				t.Errorf("session %d: %v", i, err)
			}
		})
	}
	testutil.WaitUntil(ctx, t, "the spectator's 60 verified ticks", func() bool { return spec.Stats().Verified >= 60 })
	scancel()
	wg.Wait()
	if st := h.Stats(); st.Match.Joins != 1 || st.Match.Spectators != 1 {
		t.Errorf("host: %d joins, %d spectators", st.Match.Joins, st.Match.Spectators)
	}
	if _, ok := spec.Player(); ok {
		t.Error("the spectator has a player id")
	}
	for i, s := range sessions {
		if err := s.Close(); err != nil {
			t.Errorf("session %d close: %v", i, err)
		}
	}
	stopHost()
	if err := h.Close(); err != nil {
		t.Errorf("host close: %v", err)
	}
}

// TestSpectatorFollowsMigrationOverRoom: over a real relay and WebRTC on
// 127.0.0.1, a room hosted with migration, two players and a spectator
// who join it with HostMigration (as `rewind play --join` and `rewind
// watch --join` do). The host closes: the players claim the room (one
// hosts the match), the spectator, told the host is lost, joins the room
// again by its code as a spectator (it holds no key), to the new host.
// It counts one migration, has no player id, never hosts, and verifies
// the ticks after the move with the players' hashes.
func TestSpectatorFollowsMigrationOverRoom(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	log := testutil.DebugLog(t)
	// Generous timeouts for a loaded machine, as TestHostMigrationOverRoom's.
	url, _ := startRelayWith(t, relay.RoomConfig{Log: log, HostTimeout: 15 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	h, err := rooms.Host(ctx, &testgame.Game{}, rooms.HostOptions{Relay: url, HostMigration: true,
		Server: server.Config{StartPlayers: 2, PlayerTimeout: 15 * time.Second}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	stopHost := testutil.RunHost(ctx, t, h)
	type seat struct {
		s   *rewind.Session[testgame.Input]
		log *verifiedLog
		err chan error
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
	for i := range 3 { // players 0 and 1, then the spectator
		vlog := &verifiedLog{m: map[uint32]uint64{}}
		opts := rooms.JoinOptions{HostMigration: true,
			Options: rewind.Options{Client: rewind.ClientConfig{OnVerified: vlog.add, ServerTimeout: 15 * time.Second, Spectate: i == 2}},
			Server:  server.Config{PlayerTimeout: 15 * time.Second},
			Log:     log.With("seat", i)}
		s, err := rooms.Join(ctx, &testgame.Game{}, url, h.Code(), opts)
		if err != nil {
			t.Fatal(err)
		}
		s.SetInputFunc(func(u uint32) testgame.Input { return testgame.Bot(rewind.PlayerID(i), u) })
		st := &seat{s: s, log: vlog, err: make(chan error, 1)}
		running.Add(1)
		go func() {
			defer running.Done()
			st.err <- s.Run(ctx)
		}()
		seats = append(seats, st)
	}
	spec := seats[2]
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			select {
			case <-ctx.Done():
				for i, st := range seats {
					var runErr error
					select {
					case runErr = <-st.err:
						st.err <- runErr
					default:
					}
					t.Logf("seat %d: state %v migrations %d hosting %v stats %+v run %v", i,
						st.s.State(), st.s.Migrations(), st.s.Hosting(), st.s.Stats(), runErr)
				}
				t.Fatalf("gave up waiting for %s", what)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	waitFor("everyone past tick 60", func() bool {
		for _, st := range seats {
			if st.s.Stats().Verified < 60 {
				return false
			}
		}
		return true
	})
	waitFor("the spectator's handover data", func() bool { return spec.s.Stats().Handovers > 0 })
	stopHost()
	h.Close()
	lastOld := h.Stats().Match.Tick
	waitFor("everyone 120 ticks past the old host's last", func() bool {
		for _, st := range seats {
			if st.s.Migrations() != 1 || st.s.Stats().Verified < lastOld+120 {
				return false
			}
		}
		return true
	})
	if _, ok := spec.s.Player(); ok || spec.s.Hosting() {
		t.Fatalf("the spectator has a player id, or hosts (%v)", spec.s.Hosting())
	}
	if seats[0].s.Hosting() == seats[1].s.Hosting() {
		t.Fatalf("players hosting: %v and %v, want exactly one", seats[0].s.Hosting(), seats[1].s.Hosting())
	}
	// 60 ticks that both player 0 and the spectator verified after the
	// move: from 60 past the old host's last, or from the first each
	// verified after that (a rejoiner verifies from its welcome on).
	from := lastOld + 60
	for _, st := range []*seat{seats[0], spec} {
		first, ok := st.log.firstAfter(lastOld + 59)
		if !ok {
			t.Fatalf("no tick verified after %d", lastOld+59)
		}
		from = max(from, first)
	}
	waitFor("player 0 and the spectator 60 ticks further", func() bool {
		return seats[0].s.Stats().Verified >= from+60 && spec.s.Stats().Verified >= from+60
	})
	for tick := from; tick < from+60; tick++ {
		want, ok := seats[0].log.get(tick)
		got, okSpec := spec.log.get(tick)
		if !ok || !okSpec || got != want {
			t.Fatalf("tick %d: spectator %x (%v), player 0 %x (%v)", tick, got, okSpec, want, ok)
		}
	}
	t.Logf("the spectator verified ticks %d..%d with player 0's hashes after the move (the old host's last: %d)", from, from+59, lastOld)
	for _, st := range seats {
		st.s.Close()
	}
	cancel()
	for _, st := range seats {
		<-st.err
	}
}
