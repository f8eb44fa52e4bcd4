package simmatch

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// churn is the test game with a 1 MiB blob of random bytes that Step keeps
// rewriting (16 KiB a tick), so that after a few seconds a joining player
// needs nearly all of it: a world that does not compress.
type churn struct {
	testgame.Game
	blob world.Grid[uint64]
	rng  world.RNG
	// size is the blob's bytes (default churnBytes); still leaves it as
	// Setup made it.
	size  int
	still bool
}

const churnBytes = 1 << 20

func (g *churn) Register(s *world.Schema) error {
	if err := g.Game.Register(s); err != nil {
		return err
	}
	if g.size == 0 {
		g.size = churnBytes
	}
	g.blob = world.AddGrid[uint64](s, "churn", g.size/8, 1)
	g.rng = world.AddRNG(s, "churn rng")
	return s.Err()
}

func (g *churn) Setup(w *world.World) error {
	g.rng.Seed(w, 7)
	for i, c := 0, g.blob.Cells(w); i < len(c); i++ {
		c[i] = g.rng.Uint64(w)
	}
	return g.Game.Setup(w)
}

func (g *churn) Step(w *world.World, t *game.Tick[testgame.Input]) {
	g.Game.Step(w, t)
	if g.still {
		return
	}
	c := g.blob.Cells(w)
	const per = 16 << 10 / 8
	from := int(t.Number) * per % len(c)
	for i := from; i < from+per; i++ {
		c[i] = g.rng.Uint64(w)
	}
}

// TestJoinLate1MiB: a player says hello 2 s into a match whose 1 MiB world
// has changed nearly everywhere since the start, over links of 100 ms
// one-way latency and 5% loss. It gets the world in pieces (each resent
// until acknowledged), starts from its welcome's tick, and every tick it
// verifies equals the server's.
func TestJoinLate1MiB(t *testing.T) {
	res := playChecked(t, Config[testgame.Input]{
		Players:  3,
		NewGame:  func() game.Game[testgame.Input] { return &churn{} },
		Bot:      testgame.Bot,
		Duration: 8 * time.Second,
		Link:     transport.LinkConfig{Latency: 100 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05},
		Server:   server.Config{StartPlayers: 2},
		JoinAt:   map[int]time.Duration{2: 2 * time.Second},
		Seed:     3,
	})
	j, st := res.Joins[2], res.Clients[2]
	t.Logf("joined at tick %d after %v: %d bytes to it, %d chunks, %d bytes of world; server: %+v",
		j.FirstTick, j.FirstVerified, j.Bytes, st.ChunksIn, st.FetchBytes, res.Server)
	if j.FirstTick < 120 || st.FetchBytes < churnBytes*9/10 || st.ChunksIn < 800 {
		t.Fatalf("the joiner started at tick %d from %d bytes in %d chunks: not a 1 MiB world transfer", j.FirstTick, st.FetchBytes, st.ChunksIn)
	}
	if res.Server.ChunksOut <= uint64(st.ChunksIn) {
		t.Fatalf("%d chunks sent for %d taken at 5%% loss: no resends?", res.Server.ChunksOut, st.ChunksIn)
	}
}

// keeper is the test game plus a score per player id that stays when the
// player leaves: what a game keeps for a player who may come back.
type keeper struct {
	testgame.Game
	kept world.Grid[int32]
}

func (g *keeper) Register(s *world.Schema) error {
	if err := g.Game.Register(s); err != nil {
		return err
	}
	g.kept = world.AddGrid[int32](s, "kept", game.MaxPlayers, 1)
	return s.Err()
}

func (g *keeper) Step(w *world.World, t *game.Tick[testgame.Input]) {
	g.Game.Step(w, t)
	for p, here := range t.Present {
		if here {
			*g.kept.At(w, p, 0) += 1 + int32(t.Inputs[p].DX)
		}
	}
}

// TestLeaveAndRejoinWithCookie: a player says bye at 1 s; a new client with
// its cookie says hello at 2 s and is the same player id again, finding
// the score the game kept for it; every verified tick of every client
// equals the server's.
func TestLeaveAndRejoinWithCookie(t *testing.T) {
	var keptAtLeave, keptAtRejoin, keptAtEnd int32
	g := &keeper{}
	res := play(t, Config[testgame.Input]{
		Players:  3,
		NewGame:  func() game.Game[testgame.Input] { return &keeper{} },
		Bot:      testgame.Bot,
		Duration: 4 * time.Second,
		Link:     transport.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02},
		Leave:    map[int]time.Duration{1: time.Second},
		Rejoin:   map[int]time.Duration{1: 2 * time.Second},
		Seed:     5,
		Server: server.Config{OnTick: func(tick uint32, w *world.World, _ uint64) {
			if tick == 1 { // handles for reading the server's world
				sc := world.NewSchema()
				_ = g.Register(sc)
				_, _ = world.New(sc)
			}
			switch tick {
			case 75: // after the leave (about tick 60 + a one-way trip)
				keptAtLeave = g.kept.Get(w, 1, 0)
			case 115: // before the rejoin (tick 120 + a one-way trip)
				keptAtRejoin = g.kept.Get(w, 1, 0)
			case 240:
				keptAtEnd = g.kept.Get(w, 1, 0)
			}
		}},
	})
	if res.Mismatches != 0 || !res.VerifiedEqual || res.Desyncs != 0 {
		t.Fatalf("%d mismatches, %d desyncs", res.Mismatches, res.Desyncs)
	}
	if res.Rejoined[1] != 1 {
		t.Fatalf("rejoined as player %d, want 1", res.Rejoined[1])
	}
	if res.Server.Rejoins != 1 || res.Server.Leaves != 1 || res.Server.Joins != 4 {
		t.Fatalf("server: %d rejoins, %d leaves, %d joins", res.Server.Rejoins, res.Server.Leaves, res.Server.Joins)
	}
	if keptAtLeave == 0 || keptAtRejoin != keptAtLeave || keptAtEnd == keptAtRejoin {
		t.Fatalf("kept score %d after the leave, %d before the rejoin, %d at the end", keptAtLeave, keptAtRejoin, keptAtEnd)
	}
	if res.Verified != res.Ticks || res.Joins[1].FirstTick < 100 {
		t.Fatalf("verified up to %d of %d; the rejoined client started at %d", res.Verified, res.Ticks, res.Joins[1].FirstTick)
	}
}

// TestRejoinWrongCookieRefused: a rejoin with a cookie the server never
// gave is refused with ReasonCookie, typed.
func TestRejoinWrongCookieRefused(t *testing.T) {
	res := play(t, Config[testgame.Input]{
		Players:           2,
		NewGame:           newTestGame,
		Bot:               testgame.Bot,
		Duration:          2 * time.Second,
		Link:              transport.LinkConfig{Latency: 20 * time.Millisecond},
		Leave:             map[int]time.Duration{1: 500 * time.Millisecond},
		Rejoin:            map[int]time.Duration{1: time.Second},
		RejoinWrongCookie: true,
	})
	if len(res.Refusals) != 1 {
		t.Fatalf("refusals %v", res.Refusals)
	}
	var r *client.RefusedError
	if !errors.As(res.Refusals[0], &r) || r.Reason != codec.ReasonCookie || !errors.Is(res.Refusals[0], client.ErrRefused) {
		t.Fatalf("refusal %v", res.Refusals[0])
	}
	if res.Mismatches != 0 || res.Server.Rejoins != 0 {
		t.Fatalf("%d mismatches, %d rejoins", res.Mismatches, res.Server.Rejoins)
	}
}

// TestBlackout6sComesBackThroughTheWorld: a player hears and says nothing
// for 6 s (the server keeps 4 s of ticks; timeouts are longer here so that
// it is not dropped). It comes back by the world path: a welcome to a
// newer tick, the pages its world lacks, every tick since; then verifies
// to the end, equal to the server.
func TestBlackout6sComesBackThroughTheWorld(t *testing.T) {
	res := play(t, Config[testgame.Input]{
		Players:  3,
		NewGame:  func() game.Game[testgame.Input] { return &testgame.Game{Bytes: 64 << 10} },
		Bot:      testgame.Bot,
		Duration: 12 * time.Second,
		Link:     transport.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02},
		Blackout: 6 * time.Second,
		Server:   server.Config{PlayerTimeout: 10 * time.Second},
		Client:   client.Config{ServerTimeout: 10 * time.Second},
		Seed:     9,
	})
	if res.Mismatches != 0 || !res.VerifiedEqual || res.Desyncs != 0 || res.Dropped != 0 {
		t.Fatalf("%d mismatches, %d desyncs, %d dropped", res.Mismatches, res.Desyncs, res.Dropped)
	}
	if res.Verified != res.Ticks {
		t.Fatalf("verified up to %d of %d", res.Verified, res.Ticks)
	}
	rebased := 0
	for _, c := range res.Clients {
		if c.Rebases > 0 {
			rebased++
			t.Logf("rebased client: %+v", c)
			if c.PagesAsked == 0 && c.WholeWorlds == 0 {
				t.Errorf("rebased without a world: %+v", c)
			}
		}
	}
	if rebased != 1 || res.Server.Rebases == 0 || res.Server.Leaves != 0 {
		t.Fatalf("%d clients rebased; server %+v", rebased, res.Server)
	}
}

// quiet plays with inputs that never change: no rollbacks, so that a
// corrupted world stays corrupted until verification finds it.
func quiet(game.PlayerID, uint32) testgame.Input { return testgame.Input{DX: 1} }

// corruptBlob flips bytes in one page of the test game's blob.
func corruptBlob(w *world.World) {
	b := w.Page(w.PageCount() - 3)
	b[100] ^= 0xFF
	b[2000] ^= 0x5A
}

// TestRepairOnlyTheCorruptedPage: bytes flipped in one page of a client's
// world show as a desync; the client asks for the page hashes of the tick,
// and only that page comes (a few hundred bytes for a 64 KiB world); after
// it every verified tick equals the server's, and the broken tick is
// reported verified only once repaired.
func TestRepairOnlyTheCorruptedPage(t *testing.T) {
	res := play(t, Config[testgame.Input]{
		Players:   2,
		NewGame:   func() game.Game[testgame.Input] { return &testgame.Game{Bytes: 64 << 10} },
		Bot:       quiet,
		Duration:  3 * time.Second,
		Link:      transport.LinkConfig{Latency: 30 * time.Millisecond},
		Corrupt:   map[int]time.Duration{0: time.Second},
		CorruptFn: corruptBlob,
	})
	c := res.Clients[0]
	t.Logf("client %+v\nserver %+v", c, res.Server)
	if res.Mismatches != 0 || !res.VerifiedEqual || res.Verified != res.Ticks {
		t.Fatalf("%d mismatches; verified to %d of %d", res.Mismatches, res.Verified, res.Ticks)
	}
	if c.Desyncs != 1 || c.Resyncs != 1 || c.PagesAsked != 1 || c.WholeWorlds != 0 {
		t.Fatalf("client: %d desyncs, %d resyncs, %d pages asked, %d whole worlds", c.Desyncs, c.Resyncs, c.PagesAsked, c.WholeWorlds)
	}
	s := res.Server
	if s.PagesSent != 1 || s.Transfers != 1 || s.ChunksOut != 1 || s.TransferBytes > 400 {
		t.Fatalf("server: %d pages, %d transfers, %d chunks, %d bytes sent for one 4 KiB page", s.PagesSent, s.Transfers, s.ChunksOut, s.TransferBytes)
	}
}

// TestRepairWithLostPieces: the same repair when the page hashes and the
// first copy of the page are lost on the way: the client asks again, the
// server resends, and the repair completes.
func TestRepairWithLostPieces(t *testing.T) {
	droppedHashes, droppedChunks := 0, 0
	res := play(t, Config[testgame.Input]{
		Players:   2,
		NewGame:   func() game.Game[testgame.Input] { return &testgame.Game{Bytes: 64 << 10} },
		Bot:       quiet,
		Duration:  3 * time.Second,
		Link:      transport.LinkConfig{Latency: 30 * time.Millisecond},
		Corrupt:   map[int]time.Duration{0: time.Second},
		CorruptFn: corruptBlob,
		Drop: func(i int, b []byte) bool {
			if i != 0 {
				return false
			}
			typ, _, _ := codec.Peek(b)
			switch {
			case typ == codec.TypePageHashes && droppedHashes == 0:
				droppedHashes++
				return true
			case typ == codec.TypeWorldChunk && droppedChunks == 0:
				droppedChunks++
				return true
			}
			return false
		},
	})
	c := res.Clients[0]
	if droppedHashes != 1 || droppedChunks != 1 {
		t.Fatalf("dropped %d page hashes, %d chunks", droppedHashes, droppedChunks)
	}
	if res.Mismatches != 0 || !res.VerifiedEqual || res.Verified != res.Ticks {
		t.Fatalf("%d mismatches; verified to %d of %d", res.Mismatches, res.Verified, res.Ticks)
	}
	if c.Resyncs != 1 || c.PagesAsked != 1 || res.Server.PageHashRequests != 2 || res.Server.ChunksOut != 2 {
		t.Fatalf("client %+v; server %+v", c, res.Server)
	}
}

// TestRepairBytesFollowPages: flipping bytes in 1, 4 and 16 pages of a
// client's world of 64 KiB of random bytes, the repair sends those pages
// and about nothing else: its bytes grow with the pages that differ.
func TestRepairBytesFollowPages(t *testing.T) {
	var sent []uint64
	for _, k := range []int{1, 4, 16} {
		res := play(t, Config[testgame.Input]{
			Players:  2,
			NewGame:  func() game.Game[testgame.Input] { return &churn{size: 64 << 10, still: true} },
			Bot:      quiet,
			Duration: 2 * time.Second,
			Link:     transport.LinkConfig{Latency: 30 * time.Millisecond},
			Corrupt:  map[int]time.Duration{0: time.Second},
			CorruptFn: func(w *world.World) {
				for p := 0; p < k; p++ {
					b := w.Page(w.PageCount() - 1 - p)
					b[7] ^= 1
					b[3000] ^= 0x80
				}
			},
		})
		c, s := res.Clients[0], res.Server
		t.Logf("%2d pages corrupted: %d pages asked, %d sent, %d bytes of pages, %d chunks; %d bytes to the client in the whole match",
			k, c.PagesAsked, s.PagesSent, s.TransferBytes, s.ChunksOut, c.BytesIn)
		if res.Mismatches != 0 || c.Resyncs != 1 || c.PagesAsked != uint64(k) || s.PagesSent != uint64(k) {
			t.Fatalf("%d pages: %d mismatches, %d resyncs, %d pages asked, %d sent", k, res.Mismatches, c.Resyncs, c.PagesAsked, s.PagesSent)
		}
		sent = append(sent, s.TransferBytes)
	}
	// Random pages do not compress: about 4 KiB each, and no more.
	for i, k := range []int{1, 4, 16} {
		if per := sent[i] / uint64(k); per < 3500 || per > 4300 {
			t.Errorf("%d pages: %d bytes a page", k, per)
		}
	}
}

// otherSetup is the test game whose Setup leaves a mark in the world: the
// clients' start world is then not the server's.
type otherSetup struct {
	testgame.Game
	mark world.Value[uint64]
}

func (g *otherSetup) Register(s *world.Schema) error {
	if err := g.Game.Register(s); err != nil {
		return err
	}
	g.mark = world.AddValue[uint64](s, "mark")
	return s.Err()
}

func (g *otherSetup) Setup(w *world.World) error {
	*g.mark.Ptr(w) = 0xBAD
	return g.Game.Setup(w)
}

// TestClientSetupDiffers: the clients' Setup makes another start world
// than the server's. The players there from the start see their first tick
// desync and repair it; the player joining late finds that the world sent
// against its start world does not decode to the server's, and asks for the
// whole world. Every verified tick equals the server's.
func TestClientSetupDiffers(t *testing.T) {
	res := play(t, Config[testgame.Input]{
		Players:       3,
		NewGame:       func() game.Game[testgame.Input] { return &otherSetup{Game: testgame.Game{Bytes: 16 << 10}} },
		NewClientGame: func() game.Game[testgame.Input] { return &otherSetupClient{} },
		Bot:           testgame.Bot,
		Duration:      3 * time.Second,
		Link:          transport.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02},
		Server:        server.Config{StartPlayers: 2},
		JoinAt:        map[int]time.Duration{2: time.Second},
		Seed:          4,
	})
	if res.Mismatches != 0 || !res.VerifiedEqual || res.Verified != res.Ticks {
		t.Fatalf("%d mismatches; verified to %d of %d", res.Mismatches, res.Verified, res.Ticks)
	}
	for i, c := range res.Clients[:2] {
		if c.Resyncs == 0 {
			t.Errorf("client %d: no repair: %+v", i, c)
		}
	}
	if c := res.Clients[2]; c.WholeWorlds != 1 || c.FetchFailures != 1 || c.Resyncs != 0 {
		t.Errorf("late joiner: %+v", c)
	}
}

// otherSetupClient is otherSetup with another mark.
type otherSetupClient struct{ otherSetup }

func (g *otherSetupClient) Register(s *world.Schema) error {
	g.Game.Bytes = 16 << 10
	return g.otherSetup.Register(s)
}

func (g *otherSetupClient) Setup(w *world.World) error {
	*g.mark.Ptr(w) = 0x600D
	return g.Game.Setup(w)
}

// TestFailedRepairAsksForTheWholeWorld: the page of a repair arrives
// damaged (a byte of the chunk's data flipped on the way, which the
// datagram layer does not catch); the pages do not hash as the server's
// world, so the client asks for the whole world, and the repair completes.
func TestFailedRepairAsksForTheWholeWorld(t *testing.T) {
	damaged := 0
	res := play(t, Config[testgame.Input]{
		Players:   2,
		NewGame:   func() game.Game[testgame.Input] { return &churn{size: 16 << 10, still: true} },
		Bot:       quiet,
		Duration:  2 * time.Second,
		Link:      transport.LinkConfig{Latency: 30 * time.Millisecond},
		Corrupt:   map[int]time.Duration{0: time.Second},
		CorruptFn: corruptBlob,
		Drop: func(i int, b []byte) bool {
			if typ, _, _ := codec.Peek(b); i == 0 && typ == codec.TypeWorldChunk && damaged == 0 {
				damaged++
				b[len(b)-1] ^= 0x40 // the server's send buffer: only this send is damaged
			}
			return false
		},
	})
	c := res.Clients[0]
	if damaged != 1 || res.Mismatches != 0 || !res.VerifiedEqual || res.Verified != res.Ticks {
		t.Fatalf("%d damaged, %d mismatches; verified to %d of %d", damaged, res.Mismatches, res.Verified, res.Ticks)
	}
	if c.Resyncs != 1 || c.FetchFailures != 1 || c.WholeWorlds != 1 || res.Server.WholeWorlds != 1 {
		t.Fatalf("client %+v; server %+v", c, res.Server)
	}
}
