package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/simmatch"
	"github.com/rewindnet/rewind/internal/zstdfast"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/world"
)

func init() {
	registerBench("join", "play a sand match in the simulator, then join a new player: bytes and time to its first verified tick", runBenchJoin)
}

// joinTail is how long the match runs after the join, for the joiner to
// load the world and verify.
const joinTail = 3 * time.Second

// benchJoinKeys is what bench join's help says of its result keys.
const benchJoinKeys = `The last line of standard output is key=value pairs: join_bytes and
join_ms are what the server sent the new player and how long it took from
its hello to its first verified tick (first_tick); joiner_lead_ticks and
lead_ticks are the mean predicted minus verified tick over the match's
last second of the joiner and of the players there from the start (they
should be alike); joiner_max_rollback and max_rollback their deepest
rollbacks, in ticks; verified_equal=true means every tick any client
verified hashed equal to the server's.`

func runBenchJoin(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench join", "rewind bench join [flags]\n\n"+benchJoinKeys, stderr)
	m := addMatchFlags(fs, 8, game.MaxPlayers-1, "number of players before the join", 30, "match time before the new player joins, in seconds", false)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := m.check(); err != nil {
		return err
	}
	if *m.latency < 0 || *m.jitter < 0 {
		return usageError{errors.New("--latency and --jitter must not be negative")}
	}
	before := m.duration()
	joiner := *m.players
	// The world at every tick around the join, for its size and its
	// zstd-fastest baseline at the joiner's starting tick.
	type size struct{ used, zstd int }
	sizes := map[uint32]size{}
	rate := game.RateOf(sand.New(*m.grid))
	from := uint32(max(int64(before*time.Duration(rate)/time.Second)-2, 1))
	var snap world.Snapshot
	cfg := simmatch.Config[sand.Input]{
		Players:  *m.players + 1,
		NewGame:  func() game.Game[sand.Input] { return sand.New(*m.grid) },
		Bot:      sand.Bot,
		Duration: before + joinTail,
		Link:     m.link(),
		JoinAt:   map[int]time.Duration{joiner: before},
		Seed:     *m.seed,
		Server: server.Config{StartPlayers: *m.players, OnTick: func(t uint32, w *world.World, _ uint64) {
			if t >= from && t < from+uint32(rate) {
				w.SnapshotInto(&snap)
				sizes[t] = size{w.UsedBytes(), len(zstdfast.Append(nil, snap.AppendBytes(nil)))}
			}
		}},
		Log: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) },
	}
	fmt.Fprintf(stderr, "sand %dx%d, %d players for %v, then one joins; latency %v ±%v, loss %g, seed %d\n",
		*m.grid, *m.grid, *m.players, before, *m.latency, *m.jitter, *m.loss, *m.seed)
	wall := time.Now()
	res, err := simmatch.Run(cfg)
	if err != nil {
		return err
	}
	j := res.Joins[joiner]
	sz, ok := sizes[j.FirstTick]
	if !ok || j.FirstTick == 0 {
		return fmt.Errorf("the new player did not verify a tick (first tick %d)", j.FirstTick)
	}
	st := res.Clients[joiner]
	// The players there from the start: their lead and deepest rollback,
	// to compare the joiner's with.
	var lead float64
	var depth uint32
	for i := range joiner {
		lead += res.Lead[i] / float64(joiner)
		depth = max(depth, res.Clients[i].MaxRollback)
	}
	fmt.Fprintf(stderr, "ran in %v: the new player said hello at %v, started from tick %d, %d chunks, %d pages asked, %d whole worlds, %d bytes of world encoding\n",
		time.Since(wall).Round(time.Millisecond), j.Hello, j.FirstTick, st.ChunksIn, st.PagesAsked, st.WholeWorlds, st.FetchBytes)
	keyValues(stdout,
		"world_bytes", sz.used,
		"join_bytes", j.Bytes,
		"zstd_bytes", sz.zstd,
		"join_vs_zstd", fmt.Sprintf("%.3f", float64(j.Bytes)/float64(sz.zstd)),
		"join_ms", j.FirstVerified.Milliseconds(),
		"verified_equal", res.VerifiedEqual,
		"world_encoding_bytes", st.FetchBytes,
		"first_tick", j.FirstTick,
		"joiner_lead_ticks", fmt.Sprintf("%.1f", res.Lead[joiner]),
		"lead_ticks", fmt.Sprintf("%.1f", lead),
		"joiner_max_rollback", st.MaxRollback,
		"max_rollback", depth,
		"joiner_stalls", st.Stalls,
		"clients_fully_verified", res.FullyVerified,
		"players", *m.players,
		"grid", *m.grid,
		"mismatches", res.Mismatches,
		"desyncs", res.Desyncs,
	)
	if !res.VerifiedEqual {
		return fmt.Errorf("verified worlds differ from the server's: %d of %d (client, tick) pairs", res.Mismatches, res.VerifiedTicks)
	}
	return nil
}
