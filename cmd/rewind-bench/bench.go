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
	"slices"
	"strings"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games"
	_ "github.com/rewindnet/rewind/games/all"
	"github.com/rewindnet/rewind/games/cards"
	"github.com/rewindnet/rewind/internal/tools/attack"
	"github.com/rewindnet/rewind/internal/tools/bench"
	benchabuse "github.com/rewindnet/rewind/internal/tools/bench/abuse"
	benchcodec "github.com/rewindnet/rewind/internal/tools/bench/codec"
	benchjoin "github.com/rewindnet/rewind/internal/tools/bench/join"
	benchmatch "github.com/rewindnet/rewind/internal/tools/bench/match"
	benchprivate "github.com/rewindnet/rewind/internal/tools/bench/private"
	benchworld "github.com/rewindnet/rewind/internal/tools/bench/world"
	"github.com/rewindnet/rewind/internal/tools/privatesim"
	"github.com/rewindnet/rewind/server"
)

// The benchmarks run in-process: each is a package of internal/tools/bench
// whose Run this file's commands call with the flags' Config, printing
// the Result's key=value line.

func init() {
	registerBench("world", "snapshot, hash and paged-delta benchmarks of package world", runBenchWorld)
}

// runBenchWorld measures package world against memcpy, xxh3 and zstd; see
// docs/benchmarks.md (World) for what each figure means.
func runBenchWorld(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench world", "rewind-bench world [flags]", stderr)
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
	fs := newFlags("bench match", "rewind-bench match [flags]\n\n"+benchmatch.Keys, stderr)
	m := addMatchFlags(fs, 4, game.MaxPlayers, "number of players", 10, "match time to simulate, in seconds", true)
	blackout := fs.Duration("blackout", 0, "the lowest-id player hears and says nothing for this long, starting a third of the way in")
	resend := fs.String("resend", "selective", "how the server resends ticks: selective (lost ones, plus the tick before each fresh one) or all (every unacknowledged tick in every datagram)")
	verbose := fs.Bool("v", false, "log every client's state each second to stderr")
	lockstep := fs.Int("lockstep", 0, "this many of the players (the first ones) play lockstep; the rest predict")
	delay := fs.Int("input-delay", 0, "every client's input delay in ticks (0: rollback's 0, lockstep's 2)")
	stallFlag := fs.String("stall", "never", "the server's stall policy: never, wait:DURATION or acks:K")
	gameName := fs.String("game", defaultGame, "the game, a registered one that hides nothing: "+strings.Join(matchGames(), ", ")+" (sand on --grid)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := m.check(); err != nil {
		return err
	}
	switch {
	case *resend != "selective" && *resend != "all":
		return usageError{Err: fmt.Errorf("--resend %q: want selective or all", *resend)}
	case *m.latency < 0 || *m.jitter < 0 || *blackout < 0:
		return usageError{Err: errors.New("--latency, --jitter and --blackout must not be negative")}
	case *lockstep < 0 || *lockstep > *m.players:
		return usageError{Err: fmt.Errorf("--lockstep %d: want 0..--players", *lockstep)}
	case !slices.Contains(matchGames(), *gameName):
		return usageError{Err: fmt.Errorf("--game %q: want one of %s", *gameName, strings.Join(matchGames(), ", "))}
	case *delay < 0 || *delay > 60:
		return usageError{Err: fmt.Errorf("--input-delay %d: want 0..60", *delay)}
	}
	stall, err := server.ParseStall(*stallFlag)
	if err != nil {
		return usageError{Err: fmt.Errorf("--stall %s: want never, wait:DURATION or acks:K", *stallFlag)}
	}
	res, err := benchmatch.Run(context.Background(), benchmatch.Config{Game: *gameName, Grid: *m.grid, Players: *m.players, Lockstep: *lockstep,
		Duration: m.duration(), Link: m.link(), Blackout: *blackout, Seed: *m.seed, ResendAll: *resend == "all",
		Stall: stall, InputDelay: *delay, Trace: *verbose, Log: stderr})
	return printResult(stdout, res.Pairs(), err)
}

// defaultGame is bench match's --game default.
const defaultGame = "sand"

// matchGames are the registered games bench match plays: those that hide
// no information (every verified world is the server's).
func matchGames() []string {
	var names []string
	for _, e := range games.All() {
		if !e.Hidden {
			names = append(names, e.Name)
		}
	}
	return names
}

func runBenchJoin(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench join", "rewind-bench join [flags]\n\n"+benchjoin.Keys, stderr)
	m := addMatchFlags(fs, 8, game.MaxPlayers-1, "number of players before the join", 30, "match time before the new player joins, in seconds", false)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := m.check(); err != nil {
		return err
	}
	if *m.latency < 0 || *m.jitter < 0 {
		return usageError{Err: errors.New("--latency and --jitter must not be negative")}
	}
	res, err := benchjoin.Run(context.Background(), benchjoin.Config{Players: *m.players, Grid: *m.grid, Before: m.duration(),
		Link: m.link(), Seed: *m.seed, Log: stderr})
	return printResult(stdout, res.Pairs(), err)
}

func runBenchPrivate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench private", "rewind-bench private [flags]\n\n"+benchprivate.Keys, stderr)
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
		return usageError{Err: fmt.Errorf("--players %d: want 2 to %d", *players, cards.MaxPlayers)}
	case *seconds <= 0 || *seconds > 3600:
		return usageError{Err: errors.New("--seconds must be in (0, 3600]")}
	case *loss < 0 || *loss >= 1:
		return usageError{Err: errors.New("--loss must be in [0, 1)")}
	case *latency <= 0 || *jitter < 0:
		return usageError{Err: errors.New("--latency must be positive and --jitter not negative")}
	}
	cfg := privatesim.Config{Players: *players, Ticks: uint32(*seconds * 60), Loss: *loss, Latency: *latency, Jitter: *jitter, Seed: *seed}
	res, err := benchprivate.Run(context.Background(), benchprivate.Config{Config: cfg, Log: stderr})
	return printResult(stdout, res.Pairs(), err)
}

func runBenchCodec(args []string, stdout, stderr io.Writer) error {
	flags := newFlags("bench codec", "rewind-bench codec [--demos DIR]", stderr)
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

func init() {
	registerBench("abuse", "run the attack suites of issues 15 and 30 against real sockets on 127.0.0.1: one attack=NAME held=true|false line each", runBenchAbuse)
}

func runBenchAbuse(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench abuse", "rewind-bench abuse [--short] [--attack NAME,...]\n\n"+benchabuse.Keys, stderr)
	short := fs.Bool("short", false, "run the short versions (seconds each)")
	only := fs.String("attack", "", "run only these attacks (comma-separated names)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var names []string
	extra := append([]attack.Attack{attack.ServeJSONMetrics(serveProcess)}, abuseTestAttacks...)
	if *only != "" {
		names = strings.Split(*only, ",")
		if n, bad := benchabuse.Unknown(names, extra...); bad {
			return usageError{Err: fmt.Errorf("--attack %q: no such attack", n)}
		}
	}
	ctx, stop := signalContext()
	defer stop()
	rs, err := benchabuse.Run(ctx, benchabuse.Config{Short: *short, Attacks: names, Log: stderr, Extra: extra,
		OnResult: func(r attack.Result) { fmt.Fprintln(stdout, r.Line()) }})
	if err != nil {
		return err
	}
	if broke := benchabuse.Broken(rs); len(broke) > 0 {
		return fmt.Errorf("bench abuse: %d of %d attacks did not hold: %s", len(broke), len(rs), strings.Join(broke, ", "))
	}
	return nil
}

// abuseTestAttacks are attacks bench abuse runs after the suite's when
// named (tests add one that breaks).
var abuseTestAttacks []attack.Attack
