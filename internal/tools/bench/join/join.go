// Package join is `rewind-bench join`: a sand match played in the
// simulator, then a new player joins: the bytes and time to its first
// verified tick, and how its lead and rollbacks compare with the others'.
package join

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/testing/simmatch"
	"github.com/rewindnet/rewind/internal/tools/bench"
	"github.com/rewindnet/rewind/internal/zstdfast"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// Tail is how long the match runs after the join, for the joiner to
// load the world and verify.
const Tail = 3 * time.Second

// Config is the match before the join.
type Config struct {
	// Players is the number of players before the join; Grid the side
	// of the sand grid.
	Players, Grid int
	// Before is the match time before the new player joins.
	Before time.Duration
	// Link is every link's simulated network.
	Link transport.LinkConfig
	// Seed seeds the simulator.
	Seed int64
	// Log gets the progress lines (nil: none).
	Log io.Writer
}

// Result is the match's figures and the join's.
type Result struct {
	simmatch.Result
	// Config is what was played.
	Config Config
	// Join is the joiner's: bytes the server sent it, its first tick and
	// how long to its first verified tick.
	Join simmatch.JoinStat
	// WorldBytes is the world's bytes in use at the joiner's first tick,
	// ZstdBytes their zstd-fastest compression.
	WorldBytes, ZstdBytes int
	// Joiner is the joiner's client statistics.
	Joiner client.Stats
	// JoinerLead and Lead are the mean lead in ticks over the last second
	// of the joiner and of the players there from the start.
	JoinerLead, Lead float64
	// Depth is the deepest rollback of the players there from the start.
	Depth uint32
}

// Run plays the match and the join. A join whose joiner verified no
// tick returns an error; one whose verified worlds differ from the
// server's a complete Result and a bench.Failure.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	joiner := cfg.Players
	// The world at every tick around the join, for its size and its
	// zstd-fastest baseline at the joiner's starting tick.
	type size struct{ used, zstd int }
	sizes := map[uint32]size{}
	rate := game.RateOf(sand.New(cfg.Grid))
	from := uint32(max(int64(cfg.Before*time.Duration(rate)/time.Second)-2, 1))
	var snap world.Snapshot
	sc := simmatch.Config[sand.Input]{
		Players:  cfg.Players + 1,
		NewGame:  func() game.Game[sand.Input] { return sand.New(cfg.Grid) },
		Bot:      sand.Bot,
		Duration: cfg.Before + Tail,
		Link:     cfg.Link,
		JoinAt:   map[int]time.Duration{joiner: cfg.Before},
		Seed:     cfg.Seed,
		Server: server.Config{StartPlayers: cfg.Players, OnTick: func(t uint32, w *world.World, _ uint64) {
			if t >= from && t < from+uint32(rate) {
				w.SnapshotInto(&snap)
				sizes[t] = size{w.UsedBytes(), len(zstdfast.Append(nil, snap.AppendBytes(nil)))}
			}
		}},
		Log: func(format string, a ...any) { fmt.Fprintf(cfg.Log, format+"\n", a...) },
	}
	fmt.Fprintf(cfg.Log, "sand %dx%d, %d players for %v, then one joins; latency %v ±%v, loss %g, seed %d\n",
		cfg.Grid, cfg.Grid, cfg.Players, cfg.Before, cfg.Link.Latency, cfg.Link.Jitter, cfg.Link.Loss, cfg.Seed)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	wall := time.Now()
	sr, err := simmatch.Run(sc)
	if err != nil {
		return Result{}, err
	}
	r := Result{Result: sr, Config: cfg, Join: sr.Joins[joiner], Joiner: sr.Clients[joiner], JoinerLead: sr.Lead[joiner]}
	sz, ok := sizes[r.Join.FirstTick]
	if !ok || r.Join.FirstTick == 0 {
		return r, fmt.Errorf("the new player did not verify a tick (first tick %d)", r.Join.FirstTick)
	}
	r.WorldBytes, r.ZstdBytes = sz.used, sz.zstd
	// The players there from the start: their lead and deepest rollback,
	// to compare the joiner's with.
	for i := range joiner {
		r.Lead += sr.Lead[i] / float64(joiner)
		r.Depth = max(r.Depth, sr.Clients[i].MaxRollback)
	}
	st := r.Joiner
	fmt.Fprintf(cfg.Log, "ran in %v: the new player said hello at %v, started from tick %d, %d chunks, %d pages asked, %d whole worlds, %d bytes of world encoding\n",
		time.Since(wall).Round(time.Millisecond), r.Join.Hello, r.Join.FirstTick, st.ChunksIn, st.PagesAsked, st.WholeWorlds, st.FetchBytes)
	if !sr.VerifiedEqual {
		return r, bench.Failure{Err: fmt.Errorf("verified worlds differ from the server's: %d of %d (client, tick) pairs", sr.Mismatches, sr.VerifiedTicks)}
	}
	return r, nil
}

// Pairs returns the command's key=value pairs, in the order of its line.
func (r Result) Pairs() []any {
	return []any{
		"world_bytes", r.WorldBytes,
		"join_bytes", r.Join.Bytes,
		"zstd_bytes", r.ZstdBytes,
		"join_vs_zstd", fmt.Sprintf("%.3f", float64(r.Join.Bytes)/float64(r.ZstdBytes)),
		"join_ms", r.Join.FirstVerified.Milliseconds(),
		"verified_equal", r.VerifiedEqual,
		"world_encoding_bytes", r.Joiner.FetchBytes,
		"first_tick", r.Join.FirstTick,
		"joiner_lead_ticks", fmt.Sprintf("%.1f", r.JoinerLead),
		"lead_ticks", fmt.Sprintf("%.1f", r.Lead),
		"joiner_max_rollback", r.Joiner.MaxRollback,
		"max_rollback", r.Depth,
		"joiner_stalls", r.Joiner.Stalls,
		"clients_fully_verified", r.FullyVerified,
		"players", r.Config.Players,
		"grid", r.Config.Grid,
		"mismatches", r.Mismatches,
		"desyncs", r.Desyncs,
	}
}

// Keys is what bench join's help says of its result keys.
const Keys = `The last line of standard output is key=value pairs: join_bytes and
join_ms are what the server sent the new player and how long it took from
its hello to its first verified tick (first_tick); joiner_lead_ticks and
lead_ticks are the mean predicted minus verified tick over the match's
last second of the joiner and of the players there from the start (they
should be alike); joiner_max_rollback and max_rollback their deepest
rollbacks, in ticks; verified_equal=true means every tick any client
verified hashed equal to the server's.`
