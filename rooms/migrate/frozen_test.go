package migrate_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testgame"
	"github.com/rewindnet/rewind/internal/zstdfast"
	"github.com/rewindnet/rewind/rooms/migrate"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// TestFrozenHostWakesAndRejoins, in made-up time, the path of a host
// that froze (a browser tab put away, whose Worker runs the match's
// server and its own player; a stopped process): host A (PlayHost) and
// player B play; A runs nothing for 6 s, longer than its server's and
// its own client's 5 s timeouts. Meanwhile the relay's notice tells B
// its host is lost (ServerLost, 3 s in) and B takes the match over
// (ResumeHost). A, woken, plays on alone without failing (its own
// server does not count its own pause against its own player: without
// that, A's first Update after the pause fails "server timed out")
// until it learns it lost the room 2 s later (ServerLost: the relay's
// notice; a tab's page claims the room and is introduced to B): it stops
// hosting (its server's goodbye), migrates as a player, is refused its
// cookie at B (B's handover data named A's player the host's own) and
// joins B's match as a new player: both verify the same hashes.
func TestFrozenHostWakesAndRejoins(t *testing.T) {
	// The shared zstd encoder and decoder (A's rejoin carries a world),
	// made outside the bubble: one made in a bubble is bound to it, and
	// the next run's would be outside its own.
	dec, err := zstdfast.Decoder()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dec.DecodeAll(zstdfast.Append(nil, make([]byte, 64)), make([]byte, 0, 64)); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, frozenHostWakesAndRejoins)
}

func frozenHostWakesAndRejoins(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 20 * time.Millisecond})
	room := server.Room{Code: "ABCDEF", Key: "0123456789abcdef0123456789abcdef"}
	hashes := [3]map[uint32]uint64{{}, {}, {}} // A, B, A after the notice
	into := [2]int{0, 1}
	opts := func(i int) rewind.Options {
		return rewind.Options{Client: rewind.ClientConfig{OnVerified: func(tick uint32, h uint64) { hashes[into[i]][tick] = h }}}
	}
	aconn, _ := net.Listen("a")
	a, err := migrate.PlayHost[testgame.Input](&testgame.Game{}, aconn, server.Config{HostMigration: true, Room: room}, opts(0))
	if err != nil {
		t.Fatal(err)
	}
	bconn, _ := net.Dial("pb", "a")
	b, err := rewind.Connect[testgame.Input](&testgame.Game{}, bconn, opts(1))
	if err != nil {
		t.Fatal(err)
	}
	migrate.Own(b)
	defer b.Close()
	migrate.SetMigrator(b, func(_ context.Context, h migrate.Handoff) (migrate.Migrated[testgame.Input], error) {
		l, err := net.Listen("b")
		if err != nil {
			return migrate.Migrated[testgame.Input]{}, err
		}
		return migrate.ResumeHost[testgame.Input](b.Game(), l, h, server.Config{})
	})
	now := start
	run := func(d time.Duration, sessions ...*rewind.Session[testgame.Input]) {
		t.Helper()
		for end := now.Add(d); now.Before(end); now = now.Add(time.Millisecond) {
			net.Advance(now)
			for _, s := range sessions {
				if err := s.Update(now); err != nil {
					t.Fatalf("update at %v: %v", now.Sub(start), err)
				}
				if s.State() == rewind.Migrating {
					synctest.Wait()
				}
			}
		}
	}
	run(3*time.Second, a, b)
	aWas := a.Stats().Verified
	run(3*time.Second, b) // A frozen
	migrate.ServerLost(b) // the relay dropped A: no answer to its pings
	run(3*time.Second, b)
	if !b.Hosting() || b.Migrations() != 1 {
		t.Fatalf("B after the relay's notice: hosting %v, migrations %d", b.Hosting(), b.Migrations())
	}
	run(2*time.Second, a, b) // A woken, its page claiming the room
	if !a.Hosting() || a.State() != rewind.Playing || a.Stats().Verified < aWas+100 {
		t.Fatalf("A after it woke: hosting %v, %v, verified %d (was %d)", a.Hosting(), a.State(), a.Stats().Verified, aWas)
	}
	// The relay's notice that A lost the room (its page's claim, or
	// package rooms' claim back, found B hosting it): A stops hosting
	// and migrates as a player, its claim introducing it to B.
	migrate.SetMigrator(a, func(context.Context, migrate.Handoff) (migrate.Migrated[testgame.Input], error) {
		c, err := net.Dial("pa2", "b")
		return migrate.Migrated[testgame.Input]{Conn: c}, err
	})
	into[0] = 2
	migrate.ServerLost(a)
	run(3*time.Second, a, b)
	a2 := a
	idA, okA := a2.Player()
	idB, _ := b.Player()
	if !okA || idA == idB || a2.State() != rewind.Playing || a2.Hosting() || a2.Migrations() != 1 {
		t.Fatalf("A again: player %d (%v; B is %d), %v, hosting %v, migrations %d", idA, okA, idB, a2.State(), a2.Hosting(), a2.Migrations())
	}
	if st, _ := b.ServerStats(); st.Players != 2 {
		t.Errorf("B's server has %d players, want 2", st.Players)
	}
	common := 0
	for tick, h := range hashes[2] {
		if g, ok := hashes[1][tick]; ok {
			common++
			if g != h {
				t.Fatalf("tick %d: A again verified %016x, B %016x", tick, h, g)
			}
		}
	}
	if common < 100 {
		t.Fatalf("only %d ticks verified by A again and B", common)
	}
}
