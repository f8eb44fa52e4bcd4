package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rewindnet/rewind/internal/attack"
	"github.com/rewindnet/rewind/internal/bench"
	benchfleet "github.com/rewindnet/rewind/internal/bench/fleet"
	benchflood "github.com/rewindnet/rewind/internal/bench/flood"
	"github.com/rewindnet/rewind/internal/bench/raw"
	benchrelays "github.com/rewindnet/rewind/internal/bench/relays"
	"github.com/rewindnet/rewind/internal/loadbot"
)

// The benchmarks that run child processes: this binary again, as
// `rewind bench NAME` with internal flags (childCommand).

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

// signalContext is a context that ends on SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// benchFleetKeys is what bench fleet's help says of its output.
const benchFleetKeys = `One line per step (1, 10, 100, ... matches, then --matches), the last
line for --matches: matches, players (in all), player_ticks measured,
server_us_per_player_tick (the server process's CPU, user+system by
getrusage, over the window, per tick of a player present: the bots run in
child processes), vs_one_match (that figure over the 1-match step's, in
the same run), tick_jitter_p99_ms (99th percentile of how late a match's
tick started after it was due), late_inputs (per thousand player-ticks),
rss_mb (resident memory of the server process), heap_per_match_kb (live
heap after a GC over the empty process's, per match), server_cpu_pct (of
one core), load1 (the machine's 1-minute load average), sustained (every
player stayed, jitter p99 under a tick). With --raw, the last step is also
measured against a raw socket loop (one read and one write(2) per
datagram, no batching, scaled to the same datagrams): raw_us_per_player_tick
and vs_raw.`

// fleetFlags are bench fleet's flags.
type fleetFlags struct {
	matches, players, procs, workers int
	tickPhases                       int
	seconds                          float64
	steps                            string
	raw                              bool
	cpuProfile                       string
	// The bot process (internal): --bot-server ADDR --bot-local IP
	// --bot-rooms CODE,CODE,... (or --bot-raw SIZE).
	botServer, botLocal, botRooms string
	botRaw, botCount              int
}

func (f *fleetFlags) add(fs *flag.FlagSet) {
	fs.IntVar(&f.matches, "matches", 100, "the most matches (the last step)")
	fs.IntVar(&f.players, "players", 4, "load bots per match")
	fs.Float64Var(&f.seconds, "seconds", 5, "measured window of each step, in seconds (after a 1 s warm-up)")
	fs.StringVar(&f.steps, "steps", "", "comma-separated match counts to measure (default 1, 10, 100, ... below --matches, and --matches)")
	fs.IntVar(&f.procs, "bot-procs", 4, "child processes running the load bots, each on its own 127.0.0.x address")
	fs.IntVar(&f.workers, "workers", 0, "the server's worker goroutines (default one per core)")
	fs.IntVar(&f.tickPhases, "tick-phases", 0, "instants a tick the matches' ticks share (MultiHostOptions.TickPhases; default 4, -1: each its own)")
	fs.BoolVar(&f.raw, "raw", true, "also measure a raw socket loop at the last step, for vs_raw")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the last step's measured window (the server process) to this file")
	fs.StringVar(&f.botServer, "bot-server", "", "internal: run as a bot process of bench fleet, against this server")
	fs.StringVar(&f.botLocal, "bot-local", "127.0.0.1", "internal: the bot process's local IP")
	fs.StringVar(&f.botRooms, "bot-rooms", "", "internal: the room of each load bot")
	fs.IntVar(&f.botRaw, "bot-raw", 0, "internal: raw bots sending datagrams of this size")
	fs.IntVar(&f.botCount, "bot-count", 0, "internal: raw bots in this process")
}

func (f *fleetFlags) stepList() ([]int, error) {
	if f.steps != "" {
		var out []int
		for _, s := range strings.Split(f.steps, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				return nil, usageError{fmt.Errorf("--steps %q: want positive counts", f.steps)}
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
	fs := newFlags("bench fleet", "rewind bench fleet --matches M --players P --seconds S [flags]\n\n"+benchFleetKeys, stderr)
	var f fleetFlags
	f.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.botServer != "" {
		ctx, stop := signalContext()
		defer stop()
		if f.botRaw > 0 {
			return raw.RunBots(ctx, raw.BotsConfig{Server: f.botServer, Local: f.botLocal, Count: f.botCount, Size: f.botRaw, Rate: benchfleet.TickRate})
		}
		return loadbot.Run(ctx, loadbot.Config{Server: f.botServer, Local: f.botLocal, Rooms: strings.Split(f.botRooms, ","), Rate: benchfleet.TickRate})
	}
	switch {
	case f.matches < 1 || f.matches > 5000:
		return usageError{fmt.Errorf("--matches %d: want 1..5000", f.matches)}
	case f.players < 1 || f.players > 64:
		return usageError{fmt.Errorf("--players %d: want 1..64", f.players)}
	case f.seconds <= 0:
		return usageError{errors.New("--seconds must be positive")}
	case f.procs < 1 || f.procs > 200:
		return usageError{fmt.Errorf("--bot-procs %d: want 1..200", f.procs)}
	}
	steps, err := f.stepList()
	if err != nil {
		return err
	}
	command, err := childCommand()
	if err != nil {
		return err
	}
	_, err = benchfleet.Run(context.Background(), benchfleet.Config{Steps: steps, Players: f.players, Procs: f.procs, Workers: f.workers,
		TickPhases: f.tickPhases, Window: time.Duration(f.seconds * float64(time.Second)), Raw: f.raw, CPUProfile: f.cpuProfile,
		Command: command, Log: stderr, OnStep: func(st benchfleet.Step) { keyValues(stdout, st.Pairs()...) }})
	return err
}

// benchFloodKeys is what bench flood's help says of its output.
const benchFloodKeys = `The matches (bench fleet's: one MultiHost on 127.0.0.1, load bots in
child processes) are measured in three phases of --seconds each, --rounds
times: quiet; control (a child process floods a socket of its own: the
machine does the flood's work, the server none of it); flood (the same
child floods the server from ` + benchflood.IP + `: --rate bogus datagrams a second
from one port, kinds random and wire, and --hello-rate hellos a second
from --hello-ports ports, kind hello). One line at the end: flood_rate,
hello_rate, hello_ports, kinds, matches, players, seconds, rounds,
bogus_sent and hellos_sent (by the flooder, in the flood phases),
flood_received (datagrams the server read beyond the quiet rate),
jitter_p99_quiet_ms, _control_ms and _flood_ms (99th percentile of how
late a match's tick started after it was due: the players' tick jitter),
jitter_rise_ms (flood over quiet) and jitter_rise_vs_control_ms (flood
over control: what the server's own handling of the flood adds),
jitter_p99_quiet_spread_ms (the largest minus the smallest of the rounds'
quiet p99s: the machine's noise) and conclusive (more than one round and
that spread under 1 ms: only then does a rise under 1 ms mean anything),
jitter_p50_quiet_ms, _control_ms and _flood_ms (the medians, which a
stall of the machine moves less),
late_inputs_per_1000_quiet and _flood, cpu_pct_quiet and _flood (the
server process, of one core), us_per_flood_datagram (the server CPU the
flood added, per datagram read), dropped_total and dropped_reasons
(udp_dropped_datagrams_total by reason over the flood phases), retries
(hellos answered statelessly), kernel_drops_quiet and _flood (datagrams
the kernel dropped for the server's socket, its receive buffer full:
players' among them; Linux), allocs_per_bogus (heap objects the server
process allocated in the flood phases beyond the quiet rate, per datagram
read beyond it), players_after, load1, and held: conclusive, jitter rise
under 1 ms, under 0.01 allocations per flood datagram, drops counted,
every player still there (held=false with conclusive=false says the
machine was too noisy to tell, not that the server failed: read the
other figures).`

// floodFlags are bench flood's flags.
type floodFlags struct {
	rate, helloRate, helloPorts      int
	matches, players, procs, workers int
	rounds, readBuffer               int
	seconds                          float64
	kinds                            string
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
	fs.StringVar(&f.floodServer, "flood-server", "", "internal: run as bench flood's flooder against this server")
}

func runBenchFlood(args []string, stdout, stderr io.Writer) error {
	stderr = &bench.SyncWriter{W: stderr}
	fs := newFlags("bench flood", "rewind bench flood [--rate R] [--seconds S] [--matches M] [--players P] [--rounds N] [--kinds random,wire,hello] [flags]\n\n"+benchFloodKeys, stderr)
	var f floodFlags
	f.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	kinds := strings.Split(f.kinds, ",")
	for _, k := range kinds {
		if !slices.Contains(attack.FloodKinds, k) {
			return usageError{fmt.Errorf("--kinds %q: want some of %s", f.kinds, strings.Join(attack.FloodKinds, ","))}
		}
	}
	if f.floodServer != "" {
		return runFlooder(f, kinds, stdout)
	}
	if err := f.check(); err != nil {
		return err
	}
	command, err := childCommand()
	if err != nil {
		return err
	}
	res, err := benchflood.Run(context.Background(), benchflood.Config{Rate: f.rate, HelloRate: f.helloRate, HelloPorts: f.helloPorts, Kinds: kinds,
		Matches: f.matches, Players: f.players, Procs: f.procs, Workers: f.workers, Rounds: f.rounds, Seconds: f.seconds,
		ReadBuffer: f.readBuffer, Drops: dropCounts, Format: formatDrops, Command: command, Log: stderr})
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
		return usageError{fmt.Errorf("--rate %d: want 0..1000000", f.rate)}
	case f.helloRate < 0 || f.helloRate > 1_000_000:
		return usageError{fmt.Errorf("--hello-rate %d: want 0..1000000", f.helloRate)}
	case f.helloPorts < 1 || f.helloPorts > 2000:
		return usageError{fmt.Errorf("--hello-ports %d: want 1..2000", f.helloPorts)}
	case f.matches < 1 || f.matches > 500:
		return usageError{fmt.Errorf("--matches %d: want 1..500", f.matches)}
	case f.players < 1 || f.players > 64:
		return usageError{fmt.Errorf("--players %d: want 1..64", f.players)}
	case f.procs < 1 || f.procs > 200:
		return usageError{fmt.Errorf("--bot-procs %d: want 1..200", f.procs)}
	case f.seconds <= 0:
		return usageError{errors.New("--seconds must be positive")}
	case f.rounds < 1 || f.rounds > 100:
		return usageError{fmt.Errorf("--rounds %d: want 1..100", f.rounds)}
	}
	return nil
}

// runFlooder is bench flood's flooder process: it floods f.floodServer
// from benchflood.IP until interrupted, then prints what it sent.
func runFlooder(f floodFlags, kinds []string, stdout io.Writer) error {
	if f.floodServer != benchflood.Sink {
		if _, err := netip.ParseAddrPort(f.floodServer); err != nil {
			return usageError{fmt.Errorf("--flood-server %q: %w", f.floodServer, err)}
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

// benchRelaysKeys is what bench relays' help says of its output.
const benchRelaysKeys = `It starts --relays ` + "`rewind relay --redis URL --redis-ttl TTL`" + ` processes
(and a redis-server of its own unless --redis is given), and keeps --rooms
rooms open: room i is hosted through relay i mod R and joined by one
player through relay i+1 mod R, so every join crosses relays (a Redis
lookup, the join forwarded over pub/sub to the host's relay and the answer
back). Hosts and players are bare clients of the rooms protocol: hosts
answer pings, players report their data channel open at once; no WebRTC.
Then, for --seconds, workers end rooms (the host's end, the player hearing
it through its relay) and open new ones in their place. At --kill-at of
the run the last relay is killed (SIGKILL) and the churn pauses while the
rest is measured: killed_rooms (rooms hosted through it) and
killed_rooms_gone_s (until the last left the directory, polled every
20 ms; the TTL bounds it), standins (players of the other relays' rooms
who had joined through it) and standins_dropped_s (until the last host
heard it left; standins_dropped_early: those whose host had heard it
before the kill, the relay taken for dead while it lived), others (the other relays' rooms) and others_untouched
(each still live in the directory with the same owner, its host and its
other-relay player undisturbed), rejoins (new players joining up to 100
of them through another live relay: ok/tried). Then the churn goes on
over the live relays. The one line: relays, rooms, ttl_s, fill_s (opening
the first --rooms), opened, closed, churn_s, opened_per_s, closed_per_s
(during the churn), join_p50_ms, join_p99_ms (join sent to joined, every
join), errors, the kill's figures, load1, and held (the killed relay's
rooms gone within the TTL, the others untouched, every stand-in dropped,
every rejoin and every open and close done; gone within the TTL: no poll
begun more than the TTL and a poll after the kill found one).`

func runBenchRelays(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench relays", "rewind bench relays [--relays R] [--rooms N] [--seconds S] [--ttl D] [--redis URL]", stderr)
	var f benchrelays.Config
	fs.IntVar(&f.Relays, "relays", 3, "relay processes (3 or more)")
	fs.IntVar(&f.Rooms, "rooms", 1000, "rooms kept open, each with a host and a player")
	fs.IntVar(&f.Workers, "workers", 32, "rooms opened or closed at once")
	fs.Float64Var(&f.Seconds, "seconds", 20, "churn, in seconds (the kill's measurement not counted)")
	fs.Float64Var(&f.KillAt, "kill-at", 0.5, "when the last relay is killed, as a fraction of --seconds")
	fs.DurationVar(&f.TTL, "ttl", 5*time.Second, "the relays' --redis-ttl")
	fs.StringVar(&f.Redis, "redis", "", "the Redis the relays share (redis://HOST:PORT/DB; default: a redis-server of the bench's own, on a free port)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rewind bench relays [flags]\n\n%s\n\nflags:\n", benchRelaysKeys)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case f.Relays < 3:
		return usageError{fmt.Errorf("--relays %d: want 3 or more (one is killed, and joins cross the others)", f.Relays)}
	case f.Rooms < 1 || f.Workers < 1 || f.Seconds <= 0:
		return usageError{errors.New("--rooms, --workers and --seconds must be positive")}
	case f.KillAt < 0 || f.KillAt > 1:
		return usageError{fmt.Errorf("--kill-at %g: want 0 to 1", f.KillAt)}
	case f.TTL < 600*time.Millisecond:
		return usageError{fmt.Errorf("--ttl %v: want 600ms or more", f.TTL)}
	}
	var err error
	if f.Command, err = childCommand(); err != nil {
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
