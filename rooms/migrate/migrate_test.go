package migrate_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testgame"
	"github.com/rewindnet/rewind/rooms/migrate"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// TestPlayHostThenTakeOver, in made-up time: a session that hosts and
// plays (PlayHost) and a player of it verify the same hashes; the host
// closes (its goodbye says the match goes on elsewhere) and the player,
// whose Migrator resumes the match's server here (ResumeHost), hosts it
// from then on: one migration, the verified ticks go on from where they
// were, and the old host's own player has left the new server. The
// Migrator runs on a goroutine of its own: the test's bubble
// (testing/synctest) lets it finish before the next step.
func TestPlayHostThenTakeOver(t *testing.T) { synctest.Test(t, playHostThenTakeOver) }

func playHostThenTakeOver(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 20 * time.Millisecond})
	room := server.Room{Code: "ABCDEF", Key: "0123456789abcdef0123456789abcdef"}
	hashes := [2]map[uint32]uint64{{}, {}}
	opts := func(i int) rewind.Options {
		return rewind.Options{Client: rewind.ClientConfig{OnVerified: func(tick uint32, h uint64) { hashes[i][tick] = h }}}
	}
	aconn, _ := net.Listen("a")
	host, err := migrate.PlayHost[testgame.Input](&testgame.Game{}, aconn, server.Config{HostMigration: true, Room: room}, opts(0))
	if err != nil {
		t.Fatal(err)
	}
	pconn, _ := net.Dial("p", "a")
	p, err := rewind.Connect[testgame.Input](&testgame.Game{}, pconn, opts(1))
	if err != nil {
		t.Fatal(err)
	}
	migrate.Own(p)
	defer p.Close()
	var took migrate.Handoff
	migrate.SetMigrator(p, func(_ context.Context, h migrate.Handoff) (migrate.Migrated[testgame.Input], error) {
		took = h
		if h.Handover.Code != room.Code || h.Handover.Key != room.Key {
			t.Errorf("handover names room %s key %s", h.Handover.Code, h.Handover.Key)
		}
		b, err := net.Listen("b")
		if err != nil {
			return migrate.Migrated[testgame.Input]{}, err
		}
		return migrate.ResumeHost[testgame.Input](p.Game(), b, h, server.Config{})
	})
	now := start
	run := func(d time.Duration, sessions ...*rewind.Session[testgame.Input]) {
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
	run(3*time.Second, host, p)
	if !host.Hosting() || p.Hosting() {
		t.Fatalf("hosting: host %v, player %v", host.Hosting(), p.Hosting())
	}
	if st, ok := host.ServerStats(); !ok || st.Players != 2 {
		t.Fatalf("the host's server: %+v (ok %v), want 2 players", st, ok)
	}
	before := p.Stats().Verified
	if before < 100 {
		t.Fatalf("the player verified only tick %d in 3 s", before)
	}
	if err := host.Close(); err != nil {
		t.Fatal(err)
	}
	run(3*time.Second, p)
	if p.Migrations() != 1 || !p.Hosting() {
		t.Fatalf("after the host left: migrations %d, hosting %v", p.Migrations(), p.Hosting())
	}
	if v := p.Stats().Verified; v < before+100 || took.Tick < before/2 {
		t.Fatalf("verified tick %d after the takeover (handoff at tick %d, %d before)", v, took.Tick, before)
	}
	if st, _ := p.ServerStats(); st.Players != 1 {
		t.Errorf("the new server has %d players, want 1 (the old host's own player left)", st.Players)
	}
	common := 0
	for tick, h := range hashes[0] {
		if g, ok := hashes[1][tick]; ok {
			common++
			if g != h {
				t.Fatalf("tick %d: host verified %016x, player %016x", tick, h, g)
			}
		}
	}
	if common < 100 {
		t.Fatalf("only %d ticks verified by both", common)
	}
}
