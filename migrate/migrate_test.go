package migrate_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/zstdfast"
	"github.com/rewindnet/rewind/migrate"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// TestServeThenTakeOver, in made-up time: a session that hosts and
// plays (migrate.Serve) and a player of it verify the same hashes; the host
// closes (its goodbye says the match goes on elsewhere) and the player,
// whose Migrator resumes the match's server here (migrate.Resume), hosts it
// from then on: one migration, the verified ticks go on from where they
// were, and the old host's own player has left the new server. The
// Migrator runs on a goroutine of its own: the test's bubble
// (testing/synctest) lets it finish before the next step.
func TestServeThenTakeOver(t *testing.T) { synctest.Test(t, serveThenTakeOver) }

func serveThenTakeOver(t *testing.T) {
	sim := newSim(t)
	hashes := [2]map[uint32]uint64{{}, {}}
	opts := func(i int) rewind.Options {
		return rewind.Options{Client: rewind.ClientConfig{OnVerified: func(tick uint32, h uint64) { hashes[i][tick] = h }}}
	}
	var took client.Handoff
	host, p := sim.hostAndPlayer(opts(0), opts(1), func(h client.Handoff) {
		took = h
		if h.Handover.Code != room.Code || h.Handover.Key != room.Key {
			t.Errorf("handover names room %s key %s", h.Handover.Code, h.Handover.Key)
		}
	})
	defer p.Close()
	run := sim.run
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
	sameHashes(t, "host", "player", hashes[0], hashes[1])
}

// room is the tests' room.
var room = server.Room{Code: "ABCDEF", Key: "0123456789abcdef0123456789abcdef"}

// sim is a test's made-up time over a simulated network (20 ms each
// way), in a testing/synctest bubble.
type sim struct {
	t          *testing.T
	net        *transport.SimNetwork
	start, now time.Time
}

func newSim(t *testing.T) *sim {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 20 * time.Millisecond})
	return &sim{t: t, net: net, start: start, now: start}
}

// hostAndPlayer starts a session that hosts the match and plays in it
// (migrate.Serve, at "a", room's) and a player of it, whose Migrator takes
// the hosting over (migrate.Resume, at "b") after calling took.
func (m *sim) hostAndPlayer(hostOpts, playerOpts rewind.Options, took func(client.Handoff)) (host, p *rewind.Session[testgame.Input]) {
	m.t.Helper()
	aconn, _ := m.net.Listen("a")
	hm, err := migrate.Serve[testgame.Input](&testgame.Game{}, aconn, server.Config{HostMigration: true, Room: room})
	if err != nil {
		m.t.Fatal(err)
	}
	if host, err = rewind.Connect[testgame.Input](&testgame.Game{}, hm.Conn, hostOpts); err != nil {
		m.t.Fatal(err)
	}
	host.Migration().Serve(hm)
	pconn, _ := m.net.Dial("p", "a")
	p, err = rewind.Connect[testgame.Input](&testgame.Game{}, pconn, playerOpts)
	if err != nil {
		m.t.Fatal(err)
	}
	p.Migration().Own()
	p.Migration().SetMigrator(func(_ context.Context, h client.Handoff) (migrate.Migrated[testgame.Input], error) {
		took(h)
		b, err := m.net.Listen("b")
		if err != nil {
			return migrate.Migrated[testgame.Input]{}, err
		}
		return migrate.Resume[testgame.Input](p.Game(), b, h, server.Config{})
	})
	return host, p
}

// run updates sessions every millisecond for d, waiting for the
// Migrator of a session that migrates (it runs on a goroutine of its
// own) before the next step.
func (m *sim) run(d time.Duration, sessions ...*rewind.Session[testgame.Input]) {
	m.t.Helper()
	for end := m.now.Add(d); m.now.Before(end); m.now = m.now.Add(time.Millisecond) {
		m.net.Advance(m.now)
		for _, s := range sessions {
			if err := s.Update(m.now); err != nil {
				m.t.Fatalf("update at %v: %v", m.now.Sub(m.start), err)
			}
			if s.State() == rewind.Migrating {
				synctest.Wait()
			}
		}
	}
}

// sameHashes fails t unless sessions named a and b verified the same
// hash (ha, hb: by tick) at every tick both verified, 100 ticks at least.
func sameHashes(t *testing.T, a, b string, ha, hb map[uint32]uint64) {
	t.Helper()
	common := 0
	for tick, h := range ha {
		if g, ok := hb[tick]; ok {
			common++
			if g != h {
				t.Fatalf("tick %d: %s verified %016x, %s %016x", tick, a, h, b, g)
			}
		}
	}
	if common < 100 {
		t.Fatalf("only %d ticks verified by both %s and %s", common, a, b)
	}
}

// TestFrozenHostWakesAndRejoins, in made-up time, the path of a host
// that froze (a browser tab put away, whose Worker runs the match's
// server and its own player; a stopped process): host A (migrate.Serve) and
// player B play; A runs nothing for 6 s, longer than its server's and
// its own client's 5 s timeouts. Meanwhile the relay's notice tells B
// its host is lost (ServerLost, 3 s in) and B takes the match over
// (migrate.Resume). A, woken, plays on alone without failing (its own
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
	sim := newSim(t)
	hashes := [3]map[uint32]uint64{{}, {}, {}} // A, B, A after the notice
	into := [2]int{0, 1}
	opts := func(i int) rewind.Options {
		return rewind.Options{Client: rewind.ClientConfig{OnVerified: func(tick uint32, h uint64) { hashes[into[i]][tick] = h }}}
	}
	a, b := sim.hostAndPlayer(opts(0), opts(1), func(client.Handoff) {})
	defer b.Close()
	run := sim.run
	run(3*time.Second, a, b)
	aWas := a.Stats().Verified
	run(3*time.Second, b)      // A frozen
	b.Migration().ServerLost() // the relay dropped A: no answer to its pings
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
	a.Migration().SetMigrator(func(context.Context, client.Handoff) (migrate.Migrated[testgame.Input], error) {
		c, err := sim.net.Dial("pa2", "b")
		return migrate.Migrated[testgame.Input]{Conn: c}, err
	})
	into[0] = 2
	a.Migration().ServerLost()
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
	sameHashes(t, "A again", "B", hashes[2], hashes[1])
}
