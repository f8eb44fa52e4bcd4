package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/internal/simmatch"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

func init() {
	registerBench("match", "play a sand match over the network simulator in made-up time and check every verified tick", runBenchMatch)
}

func runBenchMatch(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench match", "rewind bench match [flags]\n\n"+benchMatchKeys, stderr)
	m := addMatchFlags(fs, 4, game.MaxPlayers, "number of players", 10, "match time to simulate, in seconds", true)
	blackout := fs.Duration("blackout", 0, "the lowest-id player hears and says nothing for this long, starting a third of the way in")
	resend := fs.String("resend", "selective", "how the server resends ticks: selective (lost ones, plus the tick before each fresh one) or all (every unacknowledged tick in every datagram)")
	verbose := fs.Bool("v", false, "log every client's state each second to stderr")
	lockstep := fs.Int("lockstep", 0, "this many of the players (the first ones) play lockstep; the rest predict")
	delay := fs.Int("input-delay", 0, "every client's input delay in ticks (0: rollback's 0, lockstep's 2)")
	stallFlag := fs.String("stall", "never", "the server's stall policy: never, wait:DURATION or acks:K")
	gameName := fs.String("game", "sand", "the game: sand (on --grid) or walkers")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := m.check(); err != nil {
		return err
	}
	switch {
	case *resend != "selective" && *resend != "all":
		return usageError{fmt.Errorf("--resend %q: want selective or all", *resend)}
	case *m.latency < 0 || *m.jitter < 0 || *blackout < 0:
		return usageError{errors.New("--latency, --jitter and --blackout must not be negative")}
	case *lockstep < 0 || *lockstep > *m.players:
		return usageError{fmt.Errorf("--lockstep %d: want 0..--players", *lockstep)}
	case *gameName != "sand" && *gameName != "walkers":
		return usageError{fmt.Errorf("--game %q: want sand or walkers", *gameName)}
	case *delay < 0 || *delay > 60:
		return usageError{fmt.Errorf("--input-delay %d: want 0..60", *delay)}
	}
	stall, err := server.ParseStall(*stallFlag)
	if err != nil {
		return usageError{fmt.Errorf("--stall %s: want never, wait:DURATION or acks:K", *stallFlag)}
	}
	dur := m.duration()
	opts := simOptions{players: *m.players, dur: dur, link: m.link(), blackout: *blackout, seed: *m.seed, resendAll: *resend == "all",
		stall: stall, delay: *delay, lockstep: *lockstep, trace: *verbose, log: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }}
	what := fmt.Sprintf("sand %dx%d", *m.grid, *m.grid)
	if *gameName == "walkers" {
		what = "walkers"
	}
	fmt.Fprintf(stderr, "%s, %d players, %v of match, latency %v ±%v, loss %g, dup %g, reorder %g, blackout %v, seed %d\n",
		what, *m.players, dur, *m.latency, *m.jitter, *m.loss, *m.dup, *m.reorder, *blackout, *m.seed)
	wall := time.Now()
	var res simmatch.Result
	if *gameName == "walkers" {
		res, err = runSim(func() game.Game[walkers.Input] { return walkers.New() }, walkers.Bot, opts)
	} else {
		res, err = runSim(func() game.Game[sand.Input] { return sand.New(*m.grid) }, sand.Bot, opts)
	}
	if err != nil {
		return err
	}
	late := uint64(0)
	minVerified := uint64(0)
	for i, c := range res.Clients {
		late += c.LateInputs
		if n := res.ClientVerifiedTicks[i]; i == 0 || n < minVerified {
			minVerified = n
		}
	}
	fmt.Fprintf(stderr, "ran in %v: %d ticks, %d (client, tick) pairs verified, %d rollbacks, %d late inputs, %d stalls\n",
		time.Since(wall).Round(time.Millisecond), res.Ticks, res.VerifiedTicks, res.Rollbacks, late, res.Stalls)
	if res.FullyVerified < *m.players {
		fmt.Fprintf(stderr, "%d of %d clients verified only part of the match (fewest: %d of %d ticks; %d dropped): verified_equal covers only the ticks they verified\n",
			*m.players-res.FullyVerified, *m.players, minVerified, res.Ticks, res.Dropped)
	}
	keyValues(stdout, append([]any{
		"players", *m.players,
		"ticks", res.Ticks,
		"desyncs", res.Desyncs,
		"resyncs", res.Resyncs,
		"max_rollback", res.MaxRollback,
		"verified_equal", res.VerifiedEqual,
		"server_us_per_player_tick", fmt.Sprintf("%.2f", res.ServerMicrosPerPlayerTick()),
		"bytes_per_client_per_s", fmt.Sprintf("%.0f", res.BytesPerClientPerSecond(dur)),
		"client_in_bytes_per_s", fmt.Sprintf("%.0f", float64(res.ClientBytesIn)/float64(*m.players)/dur.Seconds()),
		"client_out_bytes_per_s", fmt.Sprintf("%.0f", float64(res.ClientBytesOut)/float64(*m.players)/dur.Seconds()),
		"verified_ticks", res.VerifiedTicks,
		"clients_fully_verified", res.FullyVerified,
		"min_verified_ticks", minVerified,
		"mismatches", res.Mismatches,
		"rollbacks", res.Rollbacks,
		"late_inputs", late,
		"stalls", res.Stalls,
		"dropped", res.Dropped,
		"grid", *m.grid,
		"resend", *resend}, benchMatchModes(res, *lockstep, dur, stall)...)...,
	)
	if !res.VerifiedEqual {
		return fmt.Errorf("verified worlds differ from the server's: %d of %d (client, tick) pairs, smallest verified tick %d of %d",
			res.Mismatches, res.VerifiedTicks, res.Verified, res.Ticks)
	}
	return nil
}

// simOptions are bench match's settings of a simulated match, whatever
// the game.
type simOptions struct {
	players   int
	dur       time.Duration
	link      transport.LinkConfig
	blackout  time.Duration
	seed      int64
	resendAll bool
	stall     server.Stall
	delay     int
	lockstep  int // the first this many players play lockstep
	trace     bool
	log       func(format string, a ...any)
}

// runSim plays a simulated match of the game newGame makes, with bot's
// inputs.
func runSim[I any](newGame func() game.Game[I], bot func(game.PlayerID, uint32) I, o simOptions) (simmatch.Result, error) {
	cfg := simmatch.Config[I]{
		Players:  o.players,
		NewGame:  newGame,
		Bot:      bot,
		Duration: o.dur,
		Link:     o.link,
		Blackout: o.blackout,
		Seed:     o.seed,
		Log:      o.log,
	}
	cfg.Server.ResendAll = o.resendAll
	cfg.Server.Stall = o.stall
	cfg.Client.InputDelay = o.delay
	cfg.Lockstep = map[int]bool{}
	for i := range o.lockstep {
		cfg.Lockstep[i] = true
	}
	if o.trace {
		cfg.Trace = time.Second
	}
	return simmatch.Run(cfg)
}

// benchMatchModes returns the keys (added at the end of the last line)
// comparing the lockstep clients (the first n) with the predicting ones:
// input-to-screen latency in ticks, bytes per client per second, client
// CPU per tick and snapshot memory, each kind's mean; and the lockstep
// clients' shown-world checks.
func benchMatchModes(res simmatch.Result, n int, dur time.Duration, stall server.Stall) []any {
	var kinds [2]struct {
		lat, samples, bytes, snap, rollbacks uint64
		cpu                                  time.Duration
		clients                              int
	}
	for i, c := range res.Clients {
		k := &kinds[0]
		if i < n {
			k = &kinds[1]
		}
		k.lat += c.InputLatencySum
		k.samples += c.InputSamples
		k.bytes += c.BytesIn + c.BytesOut
		k.snap += c.SnapshotBytes
		k.rollbacks += c.Rollbacks
		k.cpu += res.ClientCPUs[i]
		k.clients++
	}
	pairs := []any{"lockstep_clients", n, "stall", stall.String()}
	for j, name := range []string{"rollback", "lockstep"} {
		k := kinds[j]
		if k.clients == 0 {
			continue
		}
		pairs = append(pairs,
			name+"_input_to_screen_ticks", fmt.Sprintf("%.1f", float64(k.lat)/float64(max(k.samples, 1))),
			name+"_bytes_per_client_per_s", fmt.Sprintf("%.0f", float64(k.bytes)/float64(k.clients)/dur.Seconds()),
			name+"_snapshot_bytes", k.snap/uint64(k.clients),
			name+"_client_cpu_us_per_tick", fmt.Sprintf("%.2f", float64(k.cpu.Nanoseconds())/1e3/float64(k.clients)/float64(max(res.Ticks, 1))),
			name+"_rollbacks", k.rollbacks)
	}
	return append(pairs, "shown_ticks", res.ShownTicks, "shown_mismatches", res.ShownMismatches, "server_stalls", res.Server.Stalls)
}

// benchMatchKeys is what bench match's help says of its result keys.
const benchMatchKeys = `The last line of standard output is key=value pairs. verified_equal=true
means every tick any client verified hashed equal to the server's at that
tick (the command exits non-zero otherwise); it says nothing of ticks a
client did not verify. clients_fully_verified counts the clients that
verified every tick from their first to the match's last, and
min_verified_ticks is the fewest ticks one client verified: a client is
partially verified when it was dropped (a --blackout longer than the
server's 5 s player timeout) or moved to a newer world after falling
further behind than the server keeps ticks (4 s), skipping the ticks
between.`
