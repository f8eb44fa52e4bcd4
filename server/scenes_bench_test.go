package server

import (
	"fmt"
	"testing"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// viewGame is a world of a public 64×64 grid and 63 private scenes (the
// most a schema has) of a 16-record table each, for measuring per-view
// tick hashing.
type viewGame struct {
	grid   world.Grid[uint8]
	scenes [world.MaxScenes]world.Scene
	tables [world.MaxScenes]world.Table[[8]uint64]
}

type viewInput struct{ A int8 }

func (g *viewGame) Register(s *world.Schema) error {
	g.grid = world.AddGrid[uint8](s, "grid", 64, 64)
	for i := range g.scenes {
		g.scenes[i] = s.AddScene(fmt.Sprintf("s%d", i), world.ScenePrivate)
		g.tables[i] = world.AddTable[[8]uint64](s, fmt.Sprintf("t%d", i), 16, g.scenes[i])
	}
	return s.Err()
}

func (g *viewGame) Setup(w *world.World) error {
	for i := range g.tables {
		for j := range 16 {
			_, _ = g.tables[i].Add(w, [8]uint64{uint64(i), uint64(j)})
		}
	}
	return nil
}

func (g *viewGame) Step(*world.World, *game.Tick[viewInput]) {}

// BenchmarkViewBodies measures a tick's per-view bodies for 64 players:
// every player's view, one hash and one body per distinct view. With 1
// view all 64 players see the same scene; with 4, a team of 16 shares
// one; with 64, everyone has its own (63 private scenes, and the last
// player sees none of them).
//
//	go test -run XXX -bench ViewBodies ./server
func BenchmarkViewBodies(b *testing.B) {
	for _, views := range []int{1, 4, 64} {
		b.Run(fmt.Sprintf("players=64/views=%d", views), func(b *testing.B) {
			g := &viewGame{}
			conn, err := transport.NewLoopback().Listen("server")
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			s, err := New[viewInput](g, conn, Config{MaxPlayers: 64})
			if err != nil {
				b.Fatal(err)
			}
			for p := range 64 {
				s.players[p] = &player{id: game.PlayerID(p)}
				if team := p * views / 64; team < len(g.scenes) {
					g.scenes[team].SetViewers(s.w, g.scenes[team].Viewers(s.w)|1<<p)
				}
			}
			rec := &s.hist[1]
			rec.body = s.wire.enc.AppendTick(rec.body[:0], 0)
			before := s.scn.viewHashes
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s.viewBodies(rec)
			}
			b.StopTimer()
			if got := (s.scn.viewHashes - before) / uint64(b.N); got != uint64(views) {
				b.Fatalf("%d view hashes per tick, want %d", got, views)
			}
			b.ReportMetric(float64(views), "hashes/tick")
		})
	}
}

// TestViewBodiesOnePerView checks the cache: 64 players in 4 teams cost 4
// view hashes a tick, and each player's body carries its team's hash.
func TestViewBodiesOnePerView(t *testing.T) {
	g := &viewGame{}
	conn, err := transport.NewLoopback().Listen("server")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := New[viewInput](g, conn, Config{MaxPlayers: 64})
	if err != nil {
		t.Fatal(err)
	}
	for p := range 64 {
		s.players[p] = &player{id: game.PlayerID(p)}
		g.scenes[p/16].SetViewers(s.w, g.scenes[p/16].Viewers(s.w)|1<<p)
	}
	rec := &s.hist[1]
	rec.body = s.wire.enc.AppendTick(rec.body[:0], 0)
	s.viewBodies(rec)
	if s.scn.viewHashes != 4 || rec.vb.n != 4 {
		t.Fatalf("%d view hashes, %d views", s.scn.viewHashes, rec.vb.n)
	}
	for p := range 64 {
		b := rec.bodyFor(p, true)
		want := s.w.ViewHash(s.w.ViewOf(p))
		if got := rec.vb.views[rec.vb.of[p]].hash; got != want || b == nil {
			t.Fatalf("player %d: body hash %x, view hash %x", p, got, want)
		}
	}
	if rec.bodyFor(codec.SpectatorID, true) != nil {
		t.Fatal("a body for spectators in a match without any")
	}
	if s.cfg.HashBits != ScenesHashBits {
		t.Fatalf("hash bits %d with scenes", s.cfg.HashBits)
	}
	// With a spectator, one more view: the public scene alone. A player
	// who sees no private scene shares its body.
	s.specs = append(s.specs, &player{id: codec.SpectatorID, spectator: true})
	s.viewBodies(rec)
	if rec.vb.n != 5 || rec.bodyFor(codec.SpectatorID, true) == nil {
		t.Fatalf("with a spectator: %d views, spectator's body %v", rec.vb.n, rec.bodyFor(codec.SpectatorID, true) != nil)
	}
	if got := rec.vb.views[rec.vb.spec].hash; got != s.w.ViewHash(1) || rec.vb.views[rec.vb.spec].view != 1 {
		t.Fatalf("spectator's body hash %x, public scene's %x", got, s.w.ViewHash(1))
	}
	g.scenes[3].SetViewers(s.w, 0) // players 48..63 now see the public scene only
	s.viewBodies(rec)
	if rec.vb.n != 4 || rec.vb.of[63] != rec.vb.spec {
		t.Fatalf("a public-only player and the spectators: %d views, player 63's body %d, spectators' %d", rec.vb.n, rec.vb.of[63], rec.vb.spec)
	}
	// The spectators' body decodes to the public scene's hash.
	var tk codec.Tick
	if err := codec.NewTickDecoder(s.it.Schema, uint8(s.cfg.HashBits)).DecodeTick(rec.bodyFor(codec.SpectatorID, true), &tk); err != nil {
		t.Fatal(err)
	}
	if want := s.w.ViewHash(1) & (1<<ScenesHashBits - 1); tk.Hash != want {
		t.Fatalf("spectators' body carries hash %x, the public scene's is %x", tk.Hash, want)
	}
}
