package rooms_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/rooms"
	"github.com/rewindnet/rewind/server"
)

// verifiedLog records a session's verified hashes; it is safe for
// concurrent use.
type verifiedLog struct {
	mu sync.Mutex
	m  map[uint32]uint64
}

func (v *verifiedLog) add(tick uint32, hash uint64) {
	v.mu.Lock()
	v.m[tick] = hash
	v.mu.Unlock()
}

func (v *verifiedLog) get(tick uint32) (uint64, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	h, ok := v.m[tick]
	return h, ok
}

// firstAfter returns the first tick after t that was verified, and false
// if none was.
func (v *verifiedLog) firstAfter(t uint32) (uint32, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	first, ok := uint32(0), false
	for tick := range v.m {
		if tick > t && (!ok || tick < first) {
			first, ok = tick, true
		}
	}
	return first, ok
}

// TestHostMigrationOverRoom: over a real relay and WebRTC on 127.0.0.1, a
// room hosted with migration and three players who join with it; the
// host closes (its goodbye says the match goes on elsewhere, and its
// relay connection closes). The players claim the room: one hosts the
// match from its last verified world at the same tick numbers, the
// others rejoin it with their cookies; every player keeps its id, counts
// one migration, exactly one hosts, and they verify the same hashes past
// the migration. Then that new host goes too, and the other two migrate
// again.
func TestHostMigrationOverRoom(t *testing.T) {
	testutil.CheckGoroutines(t, 5*time.Second)
	log := testutil.DebugLog(t)
	// Generous timeouts for a loaded machine: every host here leaves by
	// closing its relay connection and saying goodbye, which start the
	// migrations at once; a host slow to answer a ping, or a client slow
	// to hear its server, must not start one.
	url, _ := startRelayWith(t, relay.RoomConfig{Log: log, HostTimeout: 15 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	h, err := rooms.Host(ctx, &testgame.Game{}, rooms.HostOptions{Relay: url, HostMigration: true,
		Server: server.Config{StartPlayers: 3, PlayerTimeout: 15 * time.Second}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	stopHost := testutil.RunHost(ctx, t, h)
	type seat struct {
		s   *rewind.Session[testgame.Input]
		log *verifiedLog
		id  rewind.PlayerID
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
	for i := range 3 {
		vlog := &verifiedLog{m: map[uint32]uint64{}}
		s, err := rooms.Join(ctx, &testgame.Game{}, url, h.Code(), rooms.JoinOptions{HostMigration: true,
			Options: rewind.Options{Client: rewind.ClientConfig{OnVerified: vlog.add, ServerTimeout: 15 * time.Second}},
			Server:  server.Config{PlayerTimeout: 15 * time.Second},
			Log:     log.With("seat", i)})
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
	// window returns the first of 60 ticks after a migration that every
	// one of on verified, once they all have: from 60 ticks past last
	// (the old host's last tick), or later if a player rejoined later (a
	// rejoiner verifies from the tick of its welcome on: on a loaded
	// machine the new host may have run a second of ticks by then).
	var waitFor func(what string, ok func() bool)
	window := func(on []*seat, last uint32) uint32 {
		t.Helper()
		from := last + 60
		for i, st := range on {
			first, ok := st.log.firstAfter(last + 59)
			if !ok {
				t.Fatalf("player %d verified no tick after %d", i, last+59)
			}
			from = max(from, first)
		}
		waitFor(fmt.Sprintf("every player past tick %d", from+60), func() bool {
			for _, st := range on {
				if st.s.Stats().Verified < from+60 {
					return false
				}
			}
			return true
		})
		return from
	}
	waitFor = func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				for i, st := range seats {
					id, _ := st.s.Player()
					var runErr error
					select {
					case runErr = <-st.err:
						st.err <- runErr
					default:
					}
					t.Logf("seat %d: id %d state %v migrations %d hosting %v stats %+v run %v", i, id,
						st.s.State(), st.s.Migrations(), st.s.Hosting(), st.s.Stats(), runErr)
				}
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("every player past tick 60", func() bool {
		for _, st := range seats {
			if st.s.Stats().Verified < 60 {
				return false
			}
		}
		return true
	})
	for _, st := range seats {
		st.id, _ = st.s.Player()
	}
	stopHost()
	h.Close()
	lastOld := h.Stats().Match.Tick
	waitFor("every player 120 ticks past the old host's last", func() bool {
		for _, st := range seats {
			if st.s.Migrations() != 1 || st.s.Stats().Verified < lastOld+120 {
				return false
			}
		}
		return true
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
	from := window(seats, lastOld)
	for tick := from; tick < from+60; tick++ {
		ref, ok := seats[0].log.get(tick)
		if !ok {
			t.Fatalf("player 0 did not verify tick %d", tick)
		}
		for i, st := range seats[1:] {
			if got, ok := st.log.get(tick); !ok || got != ref {
				t.Fatalf("tick %d: player %d %x (%v), player 0 %x", tick, i+1, got, ok, ref)
			}
		}
	}
	// The new host goes in turn (its session closes: its goodbye says the
	// match goes on, its relay connection closes): the other two migrate
	// a second time.
	// (Who hosts is read for all first: the others may take over while
	// the host's Close says its goodbye.)
	var rest []*seat
	var host *seat
	for _, st := range seats {
		if st.s.Hosting() {
			host = st
		} else {
			rest = append(rest, st)
		}
	}
	if host == nil || len(rest) != 2 {
		t.Fatalf("before the second migration: %d players do not host", len(rest))
	}
	lastOld = host.s.Stats().Verified
	host.s.Close()
	waitFor("the other two 120 ticks past the second migration", func() bool {
		for _, st := range rest {
			if st.s.Migrations() != 2 || st.s.Stats().Verified < lastOld+120 {
				return false
			}
		}
		return true
	})
	if rest[0].s.Hosting() == rest[1].s.Hosting() {
		t.Fatalf("after the second migration: hosting %v and %v", rest[0].s.Hosting(), rest[1].s.Hosting())
	}
	from = window(rest, lastOld)
	for tick := from; tick < from+60; tick++ {
		a, okA := rest[0].log.get(tick)
		b, okB := rest[1].log.get(tick)
		if !okA || !okB || a != b {
			t.Fatalf("tick %d after the second migration: %x (%v), %x (%v)", tick, a, okA, b, okB)
		}
	}
	for i, st := range rest {
		if id, _ := st.s.Player(); id != st.id {
			t.Fatalf("player %d was id %d, is %d", i, st.id, id)
		}
	}
	for _, st := range rest {
		if !st.s.Hosting() {
			st.s.Close()
		}
	}
	for _, st := range rest {
		st.s.Close()
	}
	cancel()
	for _, st := range seats {
		<-st.err
	}
}
