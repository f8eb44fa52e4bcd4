// Package match is `rewind-bench match`: a match of a registered game
// (package games: sand by default, walkers, ships, paint …) played over
// the network simulator in made-up time by the game's scripted bots,
// every verified tick checked against the server's.
package match

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/internal/testing/simmatch"
	"github.com/rewindnet/rewind/internal/tools/bench"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// Config is the match bench match plays.
type Config struct {
	// Game is a registered game's name (games.Lookup; the program
	// imports the games it plays). A game that hides information
	// (games.Entry.Hidden) is refused: its players' verified worlds are
	// their own views, not the server's.
	Game string
	// Grid is the side of the sand grid, in cells: the setting "grid" of
	// a game that has it.
	Grid int
	// Players is the number of players; the first Lockstep of them play
	// lockstep, the rest predict.
	Players, Lockstep int
	// Duration is the match time to simulate.
	Duration time.Duration
	// Link is every link's simulated network.
	Link transport.LinkConfig
	// Blackout is how long the lowest-id player hears and says nothing,
	// starting a third of the way in.
	Blackout time.Duration
	// Seed seeds the simulator.
	Seed int64
	// ResendAll makes the server resend every unacknowledged tick in
	// every datagram (else only lost ones).
	ResendAll bool
	// Stall is the server's stall policy.
	Stall server.Stall
	// InputDelay is every client's input delay in ticks.
	InputDelay int
	// Trace logs every client's state each second.
	Trace bool
	// Log gets the progress lines (nil: none).
	Log io.Writer
}

// Result is the match's figures.
type Result struct {
	simmatch.Result
	// Config is what was played.
	Config Config
	// LateInputs sums the clients' late inputs.
	LateInputs uint64
	// MinVerified is the fewest ticks one client verified.
	MinVerified uint64
	// Kinds are the rollback clients' figures and the lockstep clients'.
	Kinds [2]Kind
}

// Kind is one kind of client's figures (rollback or lockstep), summed
// over its clients.
type Kind struct {
	// Clients is how many clients are of this kind.
	Clients int
	// Latency and Samples are the summed input-to-screen latency in
	// ticks and its number of samples.
	Latency, Samples uint64
	// Bytes is the bytes in and out; Snapshot the snapshot memory.
	Bytes, Snapshot uint64
	// Rollbacks counts the rollbacks.
	Rollbacks uint64
	// CPU is the clients' CPU time.
	CPU time.Duration
}

// Run plays the match. A match whose verified worlds differ from the
// server's returns its complete Result and a bench.Failure.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	res := Result{Config: cfg}
	e, err := games.Lookup(cfg.Game)
	if err != nil {
		return res, err
	}
	if e.Hidden {
		return res, fmt.Errorf("%w: %s hides information: its players verify their own views, not the server's world", games.ErrSettings, e.Name)
	}
	v, err := e.Complete(games.Values{"grid": cfg.Grid})
	if err != nil {
		return res, err
	}
	if _, err := e.New(v); err != nil {
		return res, err
	}
	bot, err := e.Bot(games.Scripted, 0)
	if err != nil {
		return res, err
	}
	what := e.Name + " " + e.SettingsText(v)
	l := cfg.Link
	fmt.Fprintf(cfg.Log, "%s, %d players, %v of match, latency %v ±%v, loss %g, dup %g, reorder %g, blackout %v, seed %d\n",
		what, cfg.Players, cfg.Duration, l.Latency, l.Jitter, l.Loss, l.Duplicate, l.Reorder, cfg.Blackout, cfg.Seed)
	wall := time.Now()
	res.Result, err = runSim(ctx, func() game.Game[games.Input] {
		g, err := e.New(v)
		if err != nil {
			panic(err) // it made one of v above
		}
		return g
	}, bot, cfg)
	if err != nil {
		return res, err
	}
	for i, c := range res.Clients {
		res.LateInputs += c.LateInputs
		if n := res.ClientVerifiedTicks[i]; i == 0 || n < res.MinVerified {
			res.MinVerified = n
		}
		k := &res.Kinds[0]
		if i < cfg.Lockstep {
			k = &res.Kinds[1]
		}
		k.Latency += c.InputLatencySum
		k.Samples += c.InputSamples
		k.Bytes += c.BytesIn + c.BytesOut
		k.Snapshot += c.SnapshotBytes
		k.Rollbacks += c.Rollbacks
		k.CPU += res.ClientCPUs[i]
		k.Clients++
	}
	fmt.Fprintf(cfg.Log, "ran in %v: %d ticks, %d (client, tick) pairs verified, %d rollbacks, %d late inputs, %d stalls\n",
		time.Since(wall).Round(time.Millisecond), res.Ticks, res.VerifiedTicks, res.Rollbacks, res.LateInputs, res.Stalls)
	if res.FullyVerified < cfg.Players {
		fmt.Fprintf(cfg.Log, "%d of %d clients verified only part of the match (fewest: %d of %d ticks; %d dropped): verified_equal covers only the ticks they verified\n",
			cfg.Players-res.FullyVerified, cfg.Players, res.MinVerified, res.Ticks, res.Dropped)
	}
	if !res.VerifiedEqual {
		return res, bench.Failure{Err: fmt.Errorf("verified worlds differ from the server's: %d of %d (client, tick) pairs, smallest verified tick %d of %d",
			res.Mismatches, res.VerifiedTicks, res.Verified, res.Ticks)}
	}
	return res, nil
}

// runSim plays a simulated match of the game newGame makes, with bot's
// inputs.
func runSim[I any](ctx context.Context, newGame func() game.Game[I], bot func(game.PlayerID, uint32) I, o Config) (simmatch.Result, error) {
	cfg := simmatch.Config[I]{
		Players:  o.Players,
		NewGame:  newGame,
		Bot:      bot,
		Duration: o.Duration,
		Link:     o.Link,
		Blackout: o.Blackout,
		Seed:     o.Seed,
		Log:      func(format string, a ...any) { fmt.Fprintf(o.Log, format+"\n", a...) },
	}
	cfg.Server.ResendAll = o.ResendAll
	cfg.Server.Stall = o.Stall
	cfg.Client.InputDelay = o.InputDelay
	cfg.Lockstep = map[int]bool{}
	for i := range o.Lockstep {
		cfg.Lockstep[i] = true
	}
	if o.Trace {
		cfg.Trace = time.Second
	}
	if err := ctx.Err(); err != nil {
		return simmatch.Result{}, err
	}
	return simmatch.Run(cfg)
}

// Pairs returns the command's key=value pairs, in the order of its line.
func (r Result) Pairs() []any {
	c, dur := r.Config, r.Config.Duration
	resend := "selective"
	if c.ResendAll {
		resend = "all"
	}
	pairs := []any{
		"players", c.Players,
		"ticks", r.Ticks,
		"desyncs", r.Desyncs,
		"resyncs", r.Resyncs,
		"max_rollback", r.MaxRollback,
		"verified_equal", r.VerifiedEqual,
		"server_us_per_player_tick", fmt.Sprintf("%.2f", r.ServerMicrosPerPlayerTick()),
		"bytes_per_client_per_s", fmt.Sprintf("%.0f", r.BytesPerClientPerSecond(dur)),
		"client_in_bytes_per_s", fmt.Sprintf("%.0f", float64(r.ClientBytesIn)/float64(c.Players)/dur.Seconds()),
		"client_out_bytes_per_s", fmt.Sprintf("%.0f", float64(r.ClientBytesOut)/float64(c.Players)/dur.Seconds()),
		"verified_ticks", r.VerifiedTicks,
		"clients_fully_verified", r.FullyVerified,
		"min_verified_ticks", r.MinVerified,
		"mismatches", r.Mismatches,
		"rollbacks", r.Rollbacks,
		"late_inputs", r.LateInputs,
		"stalls", r.Stalls,
		"dropped", r.Dropped,
		"grid", c.Grid,
		"resend", resend,
	}
	return append(pairs, r.modes()...)
}

// modes returns the keys (added at the end of the last line) comparing
// the lockstep clients with the predicting ones: input-to-screen latency
// in ticks, bytes per client per second, client CPU per tick and
// snapshot memory, each kind's mean; and the lockstep clients'
// shown-world checks.
func (r Result) modes() []any {
	dur := r.Config.Duration
	pairs := []any{"lockstep_clients", r.Config.Lockstep, "stall", r.Config.Stall.String()}
	for j, name := range []string{"rollback", "lockstep"} {
		k := r.Kinds[j]
		if k.Clients == 0 {
			continue
		}
		pairs = append(pairs,
			name+"_input_to_screen_ticks", fmt.Sprintf("%.1f", float64(k.Latency)/float64(max(k.Samples, 1))),
			name+"_bytes_per_client_per_s", fmt.Sprintf("%.0f", float64(k.Bytes)/float64(k.Clients)/dur.Seconds()),
			name+"_snapshot_bytes", k.Snapshot/uint64(k.Clients),
			name+"_client_cpu_us_per_tick", fmt.Sprintf("%.2f", float64(k.CPU.Nanoseconds())/1e3/float64(k.Clients)/float64(max(r.Ticks, 1))),
			name+"_rollbacks", k.Rollbacks)
	}
	return append(pairs, "shown_ticks", r.ShownTicks, "shown_mismatches", r.ShownMismatches, "server_stalls", r.Server.Stalls)
}

// Keys is what bench match's help says of its result keys.
const Keys = `The last line of standard output is key=value pairs. verified_equal=true
means every tick any client verified hashed equal to the server's at that
tick (the command exits non-zero otherwise); it says nothing of ticks a
client did not verify. clients_fully_verified counts the clients that
verified every tick from their first to the match's last, and
min_verified_ticks is the fewest ticks one client verified: a client is
partially verified when it was dropped (a --blackout longer than the
server's 5 s player timeout) or moved to a newer world after falling
further behind than the server keeps ticks (4 s), skipping the ticks
between.`
