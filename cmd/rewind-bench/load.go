package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/rewindnet/rewind/internal/cli/cliflag"
	"io"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/cli/metrics"
	"github.com/rewindnet/rewind/internal/tools/attack"
	"github.com/rewindnet/rewind/internal/tools/bench"
	benchfleet "github.com/rewindnet/rewind/internal/tools/bench/fleet"
	benchflood "github.com/rewindnet/rewind/internal/tools/bench/flood"
	"github.com/rewindnet/rewind/internal/tools/bench/raw"
	benchrelays "github.com/rewindnet/rewind/internal/tools/bench/relays"
	"github.com/rewindnet/rewind/internal/tools/loadbot"
)

// The benchmarks that run child processes: this binary again, as
// `rewind-bench bench NAME` with internal flags (childCommand), or the
// rewind binary (bench relays' relays: rewindCommand).

func init() {
	registerBench("fleet", "M matches × P load bots on one UDP port: server CPU per player-tick as the matches grow, tick jitter, memory", runBenchFleet)
	registerBench("relays", "R `rewind relay --redis` processes sharing rooms: rooms open and close in a loop across them, one relay killed mid-run", runBenchRelays)
	registerBench("flood", "matches of load bots played quiet, then under a flood of bogus datagrams from one address and hellos from many ports: tick jitter rise, allocations per bogus datagram, drops by reason", runBenchFlood)
}

// childCommand is the command that runs this binary, for a benchmark's
// child processes (a test binary acts as the command when its first
// argument is "bench": TestMain).
func childCommand() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return []string{exe}, nil
}

// fleetFlags are bench fleet's flags.
type fleetFlags struct {
	matches, players, procs, workers int
	tickPhases                       int
	seconds                          float64
	steps                            string
	raw, socketReader                bool
	cpuProfile                       string
	botNice                          int
	botCPUs                          string
	// The bot process (internal): --bot-server ADDR --bot-local IP
	// --bot-rooms CODE,CODE,... (or --bot-raw SIZE).
	botServer, botLocal, botRooms string
	botRaw, botCount              int
	// The raw loop's process (internal): --raw-loop SIZE.
	rawLoop int
}

func (f *fleetFlags) add(fs *flag.FlagSet) {
	fs.IntVar(&f.matches, "matches", 100, "the most matches (the last step)")
	fs.IntVar(&f.players, "players", 4, "load bots per match")
	fs.Float64Var(&f.seconds, "seconds", 5, "measured window of each step, in seconds (after a 1 s warm-up)")
	fs.StringVar(&f.steps, "steps", "", "comma-separated match counts to measure (default 1, 10, 100, ... below --matches, and --matches)")
	fs.IntVar(&f.procs, "bot-procs", 4, "child processes running the load bots, each on its own 127.0.0.x address")
	fs.IntVar(&f.workers, "workers", 0, "the server's worker goroutines (default one per core)")
	fs.IntVar(&f.tickPhases, "tick-phases", 0, "instants a tick the matches' ticks share (host.Options.TickPhases; default 8, -1: each its own)")
	fs.BoolVar(&f.raw, "raw", true, "also measure a raw socket loop at the last step, for vs_raw")
	fs.BoolVar(&f.socketReader, "socket-reader", false, "the server's socket read by its own goroutine as datagrams arrive (host.Options.SocketReader), not drained at the tick phases: the scheduling before issue 33")
	fs.IntVar(&f.botNice, "bot-nice", benchfleet.DefaultBotNice, "the bot processes' niceness over the server's (Linux: 0 runs them at the server's CPU priority; higher lets the server's ticks run first when both want a core)")
	fs.StringVar(&f.botCPUs, "bot-cpus", "", "comma-separated CPUs the bot processes may run on (Linux; default any)")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the last step's measured window (the server process) to this file")
	fs.StringVar(&f.botServer, "bot-server", "", "internal: run as a bot process of bench fleet, against this server")
	fs.StringVar(&f.botLocal, "bot-local", "127.0.0.1", "internal: the bot process's local IP")
	fs.StringVar(&f.botRooms, "bot-rooms", "", "internal: the room of each load bot")
	fs.IntVar(&f.botRaw, "bot-raw", 0, "internal: raw bots sending datagrams of this size")
	fs.IntVar(&f.botCount, "bot-count", 0, "internal: raw bots in this process")
	fs.IntVar(&f.rawLoop, "raw-loop", 0, "internal: run as the raw loop's process, writing datagrams of this size")
}

func (f *fleetFlags) stepList() ([]int, error) {
	if f.steps != "" {
		var out []int
		for _, s := range strings.Split(f.steps, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				return nil, usageError{Err: fmt.Errorf("--steps %q: want positive counts", f.steps)}
			}
			out = append(out, n)
		}
		return out, nil
	}
	var out []int
	for n := 1; n < f.matches; n *= 10 {
		out = append(out, n)
	}
	return append(out, f.matches), nil
}

func runBenchFleet(args []string, stdout, stderr io.Writer) error {
	stderr = &bench.SyncWriter{W: stderr}
	fs := newFlags("bench fleet", "rewind-bench fleet --matches M --players P --seconds S [flags]\n\n"+benchfleet.Keys, stderr)
	var f fleetFlags
	f.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.rawLoop > 0 {
		ctx, stop := signalContext()
		defer stop()
		return raw.Serve(ctx, os.Stdin, stdout, f.rawLoop, benchfleet.TickRate)
	}
	if f.botServer != "" {
		ctx, stop := signalContext()
		defer stop()
		// One goroutine drives a process's bots: a second P only had
		// the runtime wake a thread to look for work at every tick.
		runtime.GOMAXPROCS(1)
		if f.botRaw > 0 {
			return raw.RunBots(ctx, raw.BotsConfig{Server: f.botServer, Local: f.botLocal, Count: f.botCount, Size: f.botRaw, Rate: benchfleet.TickRate})
		}
		return loadbot.Run(ctx, loadbot.Config{Server: f.botServer, Local: f.botLocal, Rooms: strings.Split(f.botRooms, ","), Rate: benchfleet.TickRate})
	}
	switch {
	case f.matches < 1 || f.matches > 5000:
		return usageError{Err: fmt.Errorf("--matches %d: want 1..5000", f.matches)}
	case f.players < 1 || f.players > 64:
		return usageError{Err: fmt.Errorf("--players %d: want 1..64", f.players)}
	case f.seconds <= 0:
		return usageError{Err: errors.New("--seconds must be positive")}
	case f.procs < 1 || f.procs > 200:
		return usageError{Err: fmt.Errorf("--bot-procs %d: want 1..200", f.procs)}
	case f.botNice < 0 || f.botNice > 19:
		return usageError{Err: fmt.Errorf("--bot-nice %d: want 0..19", f.botNice)}
	}
	steps, err := f.stepList()
	if err != nil {
		return err
	}
	cpus, err := bench.ParseCPUs(f.botCPUs)
	if err != nil {
		return usageError{Err: fmt.Errorf("--bot-cpus: %w", err)}
	}
	command, err := childCommand()
	if err != nil {
		return err
	}
	_, err = benchfleet.Run(context.Background(), benchfleet.Config{Steps: steps, Players: f.players, Procs: f.procs, Workers: f.workers,
		TickPhases: f.tickPhases, Window: time.Duration(f.seconds * float64(time.Second)), Raw: f.raw, SocketReader: f.socketReader, CPUProfile: f.cpuProfile,
		Command: command, BotSched: bench.Sched{Nice: f.botNice, CPUs: cpus}, Log: stderr,
		OnStep: func(st benchfleet.Step) { keyValues(stdout, st.Pairs()...) }})
	return err
}

// floodFlags are bench flood's flags.
type floodFlags struct {
	rate, helloRate, helloPorts      int
	matches, players, procs, workers int
	rounds, readBuffer               int
	seconds                          float64
	kinds                            string
	hf                               cliflag.Handshake // the UDP handshake limits (shared with rewind serve)
	// The flooder process (internal): --flood-server ADDR, or "sink".
	floodServer string
}

func (f *floodFlags) add(fs *flag.FlagSet) {
	fs.IntVar(&f.rate, "rate", 10000, "bogus datagrams a second from one address (kinds random and wire)")
	fs.IntVar(&f.helloRate, "hello-rate", 1000, "hellos a second in the hello flood (kind hello)")
	fs.IntVar(&f.helloPorts, "hello-ports", 200, "source ports of the hello flood")
	fs.IntVar(&f.matches, "matches", 1, "matches playing")
	fs.IntVar(&f.players, "players", 4, "load bots per match")
	fs.IntVar(&f.procs, "bot-procs", 2, "child processes running the load bots")
	fs.IntVar(&f.workers, "workers", 0, "the server's worker goroutines (default one per core)")
	fs.Float64Var(&f.seconds, "seconds", 5, "measured window of each phase (quiet, control, flood) in each round, in seconds, after a 1 s warm-up")
	fs.IntVar(&f.rounds, "rounds", 3, "rounds of the three phases, their figures summed (on a busy machine the load drifts: more rounds share it out)")
	fs.StringVar(&f.kinds, "kinds", strings.Join(attack.FloodKinds, ","), "bogus kinds: random (random bytes), wire (well-formed frames for no session), hello (hellos from many ports, half with a forged token)")
	fs.IntVar(&f.readBuffer, "read-buffer", 0, "the server socket's receive buffer in bytes (UDPConfig.ReadBuffer; default the system's)")
	f.hf.Add(fs)
	fs.StringVar(&f.floodServer, "flood-server", "", "internal: run as bench flood's flooder against this server")
}

func runBenchFlood(args []string, stdout, stderr io.Writer) error {
	stderr = &bench.SyncWriter{W: stderr}
	fs := newFlags("bench flood", "rewind-bench flood [--rate R] [--seconds S] [--matches M] [--players P] [--rounds N] [--kinds random,wire,hello] [flags]\n\n"+benchflood.Keys, stderr)
	var f floodFlags
	f.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	kinds := strings.Split(f.kinds, ",")
	for _, k := range kinds {
		if !slices.Contains(attack.FloodKinds, k) {
			return usageError{Err: fmt.Errorf("--kinds %q: want some of %s", f.kinds, strings.Join(attack.FloodKinds, ","))}
		}
	}
	if f.floodServer != "" {
		return runFlooder(f, kinds, stdout)
	}
	if err := f.check(); err != nil {
		return err
	}
	ucfg := rewind.UDPConfig{ReadBuffer: f.readBuffer}
	if err := f.hf.Apply(&ucfg); err != nil {
		return usageError{Err: err}
	}
	command, err := childCommand()
	if err != nil {
		return err
	}
	res, err := benchflood.Run(context.Background(), benchflood.Config{Rate: f.rate, HelloRate: f.helloRate, HelloPorts: f.helloPorts, Kinds: kinds,
		Matches: f.matches, Players: f.players, Procs: f.procs, Workers: f.workers, Rounds: f.rounds, Seconds: f.seconds,
		UDP: ucfg, Drops: metrics.DropCounts, Format: metrics.FormatDrops, Command: command, Log: stderr})
	if err != nil {
		return err
	}
	keyValues(stdout, res.Pairs()...)
	return nil
}

// check returns a usageError for the first flag out of range.
func (f *floodFlags) check() error {
	switch {
	case f.rate < 0 || f.rate > 1_000_000:
		return usageError{Err: fmt.Errorf("--rate %d: want 0..1000000", f.rate)}
	case f.helloRate < 0 || f.helloRate > 1_000_000:
		return usageError{Err: fmt.Errorf("--hello-rate %d: want 0..1000000", f.helloRate)}
	case f.helloPorts < 1 || f.helloPorts > 2000:
		return usageError{Err: fmt.Errorf("--hello-ports %d: want 1..2000", f.helloPorts)}
	case f.matches < 1 || f.matches > 500:
		return usageError{Err: fmt.Errorf("--matches %d: want 1..500", f.matches)}
	case f.players < 1 || f.players > 64:
		return usageError{Err: fmt.Errorf("--players %d: want 1..64", f.players)}
	case f.procs < 1 || f.procs > 200:
		return usageError{Err: fmt.Errorf("--bot-procs %d: want 1..200", f.procs)}
	case f.seconds <= 0:
		return usageError{Err: errors.New("--seconds must be positive")}
	case f.rounds < 1 || f.rounds > 100:
		return usageError{Err: fmt.Errorf("--rounds %d: want 1..100", f.rounds)}
	}
	return nil
}

// runFlooder is bench flood's flooder process: it floods f.floodServer
// from benchflood.IP until interrupted, then prints what it sent.
func runFlooder(f floodFlags, kinds []string, stdout io.Writer) error {
	if f.floodServer != benchflood.Sink {
		if _, err := netip.ParseAddrPort(f.floodServer); err != nil {
			return usageError{Err: fmt.Errorf("--flood-server %q: %w", f.floodServer, err)}
		}
	}
	ctx, stop := signalContext()
	defer stop()
	n, err := benchflood.Flooder(ctx, benchflood.FlooderConfig{Server: f.floodServer, Kinds: kinds, Rate: f.rate, HelloRate: f.helloRate, HelloPorts: f.helloPorts})
	if err != nil {
		return err
	}
	keyValues(stdout, "bogus_sent", n.Bogus, "hellos_sent", n.Hellos)
	return nil
}

func runBenchRelays(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench relays", "rewind-bench relays [--relays R] [--rooms N] [--seconds S] [--ttl D] [--redis URL]", stderr)
	var f benchrelays.Config
	fs.IntVar(&f.Relays, "relays", 3, "relay processes (3 or more)")
	fs.IntVar(&f.Rooms, "rooms", 1000, "rooms kept open, each with a host and a player")
	fs.IntVar(&f.Workers, "workers", 32, "rooms opened or closed at once")
	fs.Float64Var(&f.Seconds, "seconds", 20, "churn, in seconds (the kill's measurement not counted)")
	fs.Float64Var(&f.KillAt, "kill-at", 0.5, "when the last relay is killed, as a fraction of --seconds")
	fs.DurationVar(&f.TTL, "ttl", 5*time.Second, "the relays' --redis-ttl")
	fs.StringVar(&f.Redis, "redis", "", "the Redis the relays share (redis://HOST:PORT/DB; default: a redis-server of the bench's own, on a free port)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rewind-bench relays [flags]\n\n%s\n\nflags:\n", benchrelays.Keys)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case f.Relays < 3:
		return usageError{Err: fmt.Errorf("--relays %d: want 3 or more (one is killed, and joins cross the others)", f.Relays)}
	case f.Rooms < 1 || f.Workers < 1 || f.Seconds <= 0:
		return usageError{Err: errors.New("--rooms, --workers and --seconds must be positive")}
	case f.KillAt < 0 || f.KillAt > 1:
		return usageError{Err: fmt.Errorf("--kill-at %g: want 0 to 1", f.KillAt)}
	case f.TTL < 600*time.Millisecond:
		return usageError{Err: fmt.Errorf("--ttl %v: want 600ms or more", f.TTL)}
	}
	var err error
	if f.Command, err = rewindCommand(); err != nil {
		return err
	}
	f.Log = stderr
	res, err := benchrelays.Run(context.Background(), f)
	if err != nil {
		return err
	}
	keyValues(stdout, res.Pairs()...)
	return nil
}
