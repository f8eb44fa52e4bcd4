package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/cards"
	"github.com/rewindnet/rewind/internal/bench"
	benchcodec "github.com/rewindnet/rewind/internal/bench/codec"
	benchjoin "github.com/rewindnet/rewind/internal/bench/join"
	benchmatch "github.com/rewindnet/rewind/internal/bench/match"
	benchprivate "github.com/rewindnet/rewind/internal/bench/private"
	benchworld "github.com/rewindnet/rewind/internal/bench/world"
	"github.com/rewindnet/rewind/internal/privatesim"
	"github.com/rewindnet/rewind/server"
)

// The benchmarks run in-process: each is a package of internal/bench
// whose Run this file's commands call with the flags' Config, printing
// the Result's key=value line.

func init() {
	registerBench("world", "snapshot, hash and paged-delta benchmarks of package world", runBenchWorld)
}

// runBenchWorld measures package world against memcpy, xxh3 and zstd; see
// docs/benchmarks.md (World) for what each figure means.
func runBenchWorld(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench world", "rewind bench world [flags]", stderr)
	minTime := fs.Duration("time", 300*time.Millisecond, "minimum time per timed comparison")
	seconds := fs.Int("seconds", 30, "seconds of sand play (60 ticks each) before the whole-world encoding")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	res, err := benchworld.Run(context.Background(), benchworld.Config{MinTime: *minTime, Seconds: *seconds, Log: stderr})
	if err != nil {
		return err
	}
	keyValues(stdout, res.Pairs()...)
	return nil
}

func init() {
	registerBench("match", "play a sand match over the network simulator in made-up time and check every verified tick", runBenchMatch)
	registerBench("join", "play a sand match in the simulator, then join a new player: bytes and time to its first verified tick", runBenchJoin)
	registerBench("private", "play the cards match (private hands, server-only deck) in the simulator with every datagram captured and searched for hidden cards", runBenchPrivate)
	registerBench("codec", "input coding and tick sizes over DOOM demos (rollback wire format)", runBenchCodec)
}

// printResult prints a benchmark's key=value line when it ran to its end
// (err is nil, or a bench.Failure: figures that fail its check) and
// returns err.
func printResult(stdout io.Writer, pairs []any, err error) error {
	var f bench.Failure
	if err == nil || errors.As(err, &f) {
		keyValues(stdout, pairs...)
	}
	return err
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
	res, err := benchmatch.Run(context.Background(), benchmatch.Config{Game: *gameName, Grid: *m.grid, Players: *m.players, Lockstep: *lockstep,
		Duration: m.duration(), Link: m.link(), Blackout: *blackout, Seed: *m.seed, ResendAll: *resend == "all",
		Stall: stall, InputDelay: *delay, Trace: *verbose, Log: stderr})
	return printResult(stdout, res.Pairs(), err)
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
	res, err := benchjoin.Run(context.Background(), benchjoin.Config{Players: *m.players, Grid: *m.grid, Before: m.duration(),
		Link: m.link(), Seed: *m.seed, Log: stderr})
	return printResult(stdout, res.Pairs(), err)
}

// benchPrivateKeys is what bench private's help says of its result keys.
const benchPrivateKeys = `The cards example (games/cards) is played twice over the network
simulator in made-up time: with its private scenes, then with everything
public (the public_ keys) to measure what hiding costs. Every datagram the
server sends is searched for the bytes of every card that player may not
know (the deck, the hole card, the others' hands) and of the dealer's
generator state and of the other players' private notes (an input field
tagged private), and so is every client's world every 10 ms; every tick
body each player is sent is decoded as a modified client would, counting
other players' private input fields that show (private_inputs_seen).

The last line of standard output is key=value pairs: leaked_bytes (bytes
of hidden values found where a player may not see them: must be 0; the
command exits non-zero otherwise), verified_equal (true when every
client's verified hash equaled the server's hash of that client's view on
every verified tick), hidden_read_repairs (repairs of worlds mispredicted
because Step read what the client cannot see), bytes_per_client_per_s
(what the server sent), server_cpu_ns_per_player_tick, view_hashes (the
server's per-view hashes: one per distinct view per tick), and the same
with public_ for the public game (whose leaked bytes show that the search
finds what it is sent).`

func runBenchPrivate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench private", "rewind bench private [flags]\n\n"+benchPrivateKeys, stderr)
	players := fs.Int("players", 4, "players (2 to 6)")
	seconds := fs.Float64("seconds", 2000.0/60, "match time in seconds (60 ticks a second)")
	loss := fs.Float64("loss", 0.1, "loss of every link, 0 to 1")
	latency := fs.Duration("latency", 30*time.Millisecond, "one-way latency")
	jitter := fs.Duration("jitter", 5*time.Millisecond, "jitter")
	seed := fs.Int64("seed", 1, "simulator and secret seed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *players < 2 || *players > cards.MaxPlayers:
		return usageError{fmt.Errorf("--players %d: want 2 to %d", *players, cards.MaxPlayers)}
	case *seconds <= 0 || *seconds > 3600:
		return usageError{errors.New("--seconds must be in (0, 3600]")}
	case *loss < 0 || *loss >= 1:
		return usageError{errors.New("--loss must be in [0, 1)")}
	case *latency <= 0 || *jitter < 0:
		return usageError{errors.New("--latency must be positive and --jitter not negative")}
	}
	cfg := privatesim.Config{Players: *players, Ticks: uint32(*seconds * 60), Loss: *loss, Latency: *latency, Jitter: *jitter, Seed: *seed}
	res, err := benchprivate.Run(context.Background(), benchprivate.Config{Config: cfg, Log: stderr})
	return printResult(stdout, res.Pairs(), err)
}

func runBenchCodec(args []string, stdout, stderr io.Writer) error {
	flags := newFlags("bench codec", "rewind bench codec [--demos DIR]", stderr)
	dir := flags.String("demos", filepath.Join("testdata", "doom-demos"), "directory of DOOM 1.9 demos (*.lmp); the default is relative to the repository root")
	minTime := flags.Duration("time", 300*time.Millisecond, "minimum time to spend on each timing")
	if err := parseFlags(flags, args); err != nil {
		return err
	}
	dirSet := false
	flags.Visit(func(f *flag.Flag) { dirSet = dirSet || f.Name == "demos" })
	if err := checkDemoDir(*dir, dirSet); err != nil {
		return err
	}
	res, err := benchcodec.Run(context.Background(), benchcodec.Config{Dir: *dir, MinTime: *minTime, Log: stderr})
	if err != nil {
		return err
	}
	keyValues(stdout, res.Pairs()...)
	return nil
}

// checkDemoDir says plainly when dir is missing or not a directory; the
// default (not set) is relative to the repository root, so its error says
// to run from there or pass --demos.
func checkDemoDir(dir string, set bool) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !set {
			return fmt.Errorf("bench codec: demos directory %s: no such directory (relative to the current directory: run from the repository root, or pass --demos DIR)", dir)
		}
		return fmt.Errorf("bench codec: --demos %s: no such directory", dir)
	case err != nil:
		return fmt.Errorf("bench codec: demos directory: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("bench codec: --demos %s: not a directory", dir)
	}
	return nil
}
