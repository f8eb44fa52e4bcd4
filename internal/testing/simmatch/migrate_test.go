package simmatch

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// drift is the test game with a 256 KiB blob of random bytes (it does
// not compress) of which Step rewrites 64 bytes a tick, a page or more
// apart from the last tick's: over the seconds before a migration it
// touches every page, while between two ticks a few hundred milliseconds
// apart only a few pages differ.
type drift struct {
	testgame.Game
	blob world.Grid[uint64]
	rng  world.RNG
}

const driftBytes = 256 << 10

func (g *drift) Register(s *world.Schema) error {
	if err := g.Game.Register(s); err != nil {
		return err
	}
	g.blob = world.AddGrid[uint64](s, "drift", driftBytes/8, 1)
	g.rng = world.AddRNG(s, "drift rng")
	return s.Err()
}

func (g *drift) Setup(w *world.World) error {
	g.rng.Seed(w, 9)
	for i, c := 0, g.blob.Cells(w); i < len(c); i++ {
		c[i] = g.rng.Uint64(w)
	}
	return g.Game.Setup(w)
}

func (g *drift) Step(w *world.World, t *game.Tick[testgame.Input]) {
	g.Game.Step(w, t)
	c := g.blob.Cells(w)
	from := int(t.Number) * (4096 + 64) / 8 % (len(c) - 8)
	for i := from; i < from+8; i++ {
		c[i] = g.rng.Uint64(w)
	}
}

// How the host dies.
const (
	deathProcess = iota // the process dies: its relay connection closes at once
	deathHung           // it hangs: its relay connection stays open, nothing answers
	// deathUnseen: it hangs and no notice of the relay comes (a relay
	// that is slow to see it): the players' own timeout of silence (5 s)
	// starts the migration.
	deathUnseen
)

// migPlayer is one player's machine in the migration test: its client
// (the first one, then the one that rejoined the new host), what it
// verified, and where it is in the migration.
type migPlayer struct {
	i        int
	c        *client.Client[testgame.Input]
	id       game.PlayerID
	verified map[uint32]uint64
	lost     bool
	handoff  client.Handoff
	answerAt time.Time // when the relay's answer to its claim arrives
	hosts    bool      // the relay made it the new host
	rejoined bool
	fetched  uint64 // world bytes fetched by the rejoined client
}

// migRig plays a match of 4 players on a lossy simulated network, kills
// its server, and plays the migration the relay decides. The relay is
// modeled: its notice that the host is lost reaches every player half a
// round trip after it knows (at once for a process death, after its
// HostTimeout of 3 s of unanswered pings for a hung host); a claim takes
// a round trip; the first claimant hosts, the others are introduced to it
// (relay/migrate.go, tested case by case in made-up time there), and
// their data channel takes another round trip of signaling.
type migRig struct {
	t       testing.TB
	net     *transport.SimNetwork
	now     time.Time
	oneWay  time.Duration
	old     *server.Server[testgame.Input]
	oldConn *transport.SimConn
	dead    bool
	next    *server.Server[testgame.Input]
	players []*migPlayer
	claims  int
}

func newMigRig(t testing.TB, n int, link transport.LinkConfig) *migRig {
	r := &migRig{t: t, net: transport.NewSimNetwork(11, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), oneWay: link.Latency}
	r.now = r.net.Now()
	r.net.SetDefaultLink(link)
	var err error
	if r.oldConn, err = r.net.Listen("host0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.oldConn.Close() })
	r.old, err = server.New[testgame.Input](&drift{}, r.oldConn, server.Config{
		StartPlayers: n, HostMigration: true, Room: server.Room{Code: "MIG234", Key: "00112233445566778899aabbccddeeff"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := &migPlayer{i: i, verified: make(map[uint32]uint64)}
		p.c = r.newClient(p, fmt.Sprintf("c%d", i), "host0", nil)
		r.players = append(r.players, p)
	}
	return r
}

func (r *migRig) newClient(p *migPlayer, name, srv string, h *client.Handoff) *client.Client[testgame.Input] {
	conn, err := r.net.Dial(name, srv)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { conn.Close() })
	c, err := client.New[testgame.Input](&drift{}, conn, client.Config{
		Resume:     h,
		OnVerified: func(tick uint32, hash uint64) { p.verified[tick] = hash },
	})
	if err != nil {
		r.t.Fatal(err)
	}
	i := p.i
	c.SetInputFunc(func(u uint32) testgame.Input { return testgame.Bot(game.PlayerID(i), u) })
	return c
}

// step advances everything by a millisecond; noticeAt is when the relay's
// host_lost notice reaches the players (zero: not yet).
func (r *migRig) step(noticeAt time.Time) {
	r.now = r.now.Add(time.Millisecond)
	r.net.Advance(r.now)
	if !r.dead {
		if err := r.old.Update(r.now); err != nil {
			r.t.Fatal(err)
		}
	}
	if r.next != nil {
		if err := r.next.Update(r.now); err != nil {
			r.t.Fatal(err)
		}
	}
	for _, p := range r.players {
		r.stepPlayer(p, noticeAt)
	}
}

func (r *migRig) stepPlayer(p *migPlayer, noticeAt time.Time) {
	if p.lost {
		if !p.answerAt.IsZero() && !r.now.Before(p.answerAt) {
			r.answer(p)
		}
		return
	}
	err := p.c.Update(r.now)
	switch {
	case err == nil && (noticeAt.IsZero() || r.now.Before(noticeAt) || p.rejoined):
		if id, ok := p.c.Player(); ok && !p.rejoined {
			p.id = id
		}
		p.fetched = p.c.Stats().FetchBytes
		return
	case err != nil && p.rejoined:
		r.t.Fatalf("player %d after the migration: %v", p.i, err)
	case err != nil && !errors.Is(err, client.ErrTimeout) && !errors.Is(err, client.ErrHostLeaving):
		r.t.Fatalf("player %d: %v", p.i, err)
	}
	// The server is lost (the relay's notice, the timeout or the
	// "goes on elsewhere" goodbye): hand off, and claim the room.
	h, ok := p.c.Handoff()
	if !ok {
		r.t.Fatalf("player %d cannot hand off", p.i)
	}
	p.lost, p.handoff = true, h
	// The claim reaches the relay half a round trip from now; its
	// answer comes back after the other half.
	r.claims++
	p.hosts = r.claims == 1
	p.answerAt = r.now.Add(2 * r.oneWay)
	if !p.hosts {
		p.answerAt = p.answerAt.Add(2 * r.oneWay) // signaling of the data channel
	}
}

// answer acts on the relay's answer to p's claim: host the match from its
// handoff (and rejoin it from its own machine), or rejoin the new host.
func (r *migRig) answer(p *migPlayer) {
	if p.hosts {
		conn, err := r.net.Listen("host1")
		if err != nil {
			r.t.Fatal(err)
		}
		r.t.Cleanup(func() { conn.Close() })
		r.net.SetPath(fmt.Sprintf("own%d", p.i), "host1", transport.LinkConfig{}) // its own machine
		h := p.handoff
		r.next, err = server.New[testgame.Input](&drift{}, conn, server.Config{HostMigration: true,
			Room:   server.Room{Code: h.Handover.Code, Key: h.Handover.Key},
			Resume: &server.Resume{Tick: h.Tick, World: h.World, Roster: h.Roster, Handover: h.Handover}})
		if err != nil {
			r.t.Fatal(err)
		}
		p.c = r.newClient(p, fmt.Sprintf("own%d", p.i), "host1", &h)
	} else {
		if r.next == nil {
			return // the new host is not up yet: wait
		}
		p.c = r.newClient(p, fmt.Sprintf("c%db", p.i), "host1", &p.handoff)
	}
	p.lost, p.rejoined, p.answerAt = false, true, time.Time{}
}

// TestHostMigration: 4 players, 5 % loss, 50 ms one way; the host dies
// mid-match, (a) with its process (relay connection closed) and (b) hung
// (relay connection open, nothing answers). The match goes on at the
// first claimant's machine from its last verified tick, at the same tick
// numbers: every player keeps its id and its state (no join or leave
// event), every tick verified after the migration hashes equal on every
// machine, each rejoiner fetches only the pages that differ (a small part
// of the world), and the time from the host's death to the first tick
// verified after it on the new host is within 3 s + a round trip (a) or
// the client timeout + 3 s + a round trip (b).
func TestHostMigration(t *testing.T) {
	for _, death := range []int{deathProcess, deathHung, deathUnseen} {
		name := map[int]string{deathProcess: "process", deathHung: "hung", deathUnseen: "unseen"}[death]
		t.Run(name, func(t *testing.T) {
			res := runMigration(t, 4, death)
			t.Logf("%s: host death to the first verified tick on the new host: %v; world bytes fetched per rejoiner: %v of %d",
				name, res.took, res.fetched, driftBytes)
		})
	}
}

type migResult struct {
	took    time.Duration // to the first tick verified on the new host
	all     time.Duration // to every player's first verified tick after the migration
	fetched []uint64
}

// allPast reports whether every player rejoined and verified a tick past
// its handoff.
func (r *migRig) allPast() bool {
	for _, p := range r.players {
		if !p.rejoined || p.c.Stats().Verified <= p.handoff.Tick {
			return false
		}
	}
	return true
}

// BenchmarkHostMigration measures, in made-up time over the simulator
// (5 % loss, 50 ms one way), the time from the host's death to the first
// tick verified on the new host, and the world bytes each rejoiner
// fetched (of a 256 KiB world), for 4 and 16 players and both kinds of
// death. One iteration is one whole match with its migration.
func BenchmarkHostMigration(b *testing.B) {
	for _, n := range []int{4, 16} {
		for _, death := range []int{deathProcess, deathHung} {
			name := fmt.Sprintf("players=%d/death=%s", n, map[int]string{deathProcess: "process", deathHung: "hung"}[death])
			b.Run(name, func(b *testing.B) {
				var took, all time.Duration
				var fetched, rejoiners uint64
				for b.Loop() {
					res := runMigration(b, n, death)
					took += res.took
					all += res.all
					for _, f := range res.fetched {
						fetched += f
						rejoiners++
					}
				}
				b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "ms-to-verified")
				b.ReportMetric(float64(all.Milliseconds())/float64(b.N), "ms-all-verified")
				b.ReportMetric(float64(fetched)/float64(rejoiners), "world-bytes/rejoiner")
			})
		}
	}
}

func runMigration(t testing.TB, n, death int) migResult {
	link := transport.LinkConfig{Latency: 50 * time.Millisecond, Loss: 0.05}
	r := newMigRig(t, n, link)
	rtt := 2 * link.Latency
	for range 5000 { // 5 s of play
		r.step(time.Time{})
	}
	for _, p := range r.players {
		if !p.c.Playing() || len(p.verified) < 200 {
			t.Fatalf("player %d before the death: playing %v, %d verified", p.i, p.c.Playing(), len(p.verified))
		}
	}
	diedAt, lastOld := r.now, r.old.Tick()
	r.dead = true
	var noticeAt time.Time
	switch death {
	case deathProcess:
		r.oldConn.Close()
		noticeAt = diedAt.Add(link.Latency)
	case deathHung:
		noticeAt = diedAt.Add(3*time.Second + link.Latency) // the relay's HostTimeout
	}
	var firstVerified, allVerified time.Duration
	for range 12000 {
		r.step(noticeAt)
		if allVerified == 0 && r.allPast() {
			allVerified = r.now.Sub(diedAt)
		}
		if firstVerified == 0 && r.next != nil {
			for _, p := range r.players {
				if p.hosts && p.rejoined {
					for tick := range p.verified {
						if tick > p.handoff.Tick {
							firstVerified = r.now.Sub(diedAt)
						}
					}
				}
			}
		}
	}
	if r.next == nil {
		t.Fatal("no new host")
	}
	// Timing.
	limit := 3*time.Second + rtt
	if death != deathProcess {
		limit = 5*time.Second + 3*time.Second + rtt
	}
	if firstVerified == 0 || firstVerified > limit {
		t.Fatalf("host death to the first verified tick on the new host: %v, limit %v", firstVerified, limit)
	}
	// Ids, state and events.
	st := r.next.Stats()
	if st.Joins != 0 || st.Leaves != 0 || st.Players != n || r.next.Awaiting() != 0 {
		t.Fatalf("new host: %d joins, %d leaves, %d players, %d awaited", st.Joins, st.Leaves, st.Players, r.next.Awaiting())
	}
	hosts := 0
	var res migResult
	res.took, res.all = firstVerified, allVerified
	for _, p := range r.players {
		if !p.rejoined {
			t.Fatalf("player %d did not rejoin", p.i)
		}
		if id, _ := p.c.Player(); id != p.id {
			t.Fatalf("player %d was id %d, is %d", p.i, p.id, id)
		}
		if p.hosts {
			hosts++
		}
		// Bytes: the pages that differ between its verified world and the
		// new host's, not the world.
		if p.fetched > driftBytes/4 {
			t.Fatalf("player %d fetched %d world bytes of %d", p.i, p.fetched, driftBytes)
		}
		res.fetched = append(res.fetched, p.fetched)
	}
	if hosts != 1 {
		t.Fatalf("%d hosts", hosts)
	}
	// Every tick verified after the migration hashes equal everywhere, and
	// there are many of them.
	newTick := r.next.Tick()
	if newTick < lastOld+300 {
		t.Fatalf("the new host ran to tick %d only (the old one to %d)", newTick, lastOld)
	}
	ref := r.players[0].verified
	from, to := lastOld+200, newTick-60
	for _, p := range r.players {
		got := 0
		for tick := from; tick < to; tick++ {
			h, ok := p.verified[tick]
			if !ok {
				continue
			}
			got++
			if want, ok := ref[tick]; ok && h != want {
				t.Fatalf("tick %d: player %d hash %x, player 0 %x", tick, p.i, h, want)
			}
		}
		if got < int(to-from) {
			t.Fatalf("player %d verified %d of the %d ticks %d..%d", p.i, got, to-from, from, to-1)
		}
	}
	return res
}
