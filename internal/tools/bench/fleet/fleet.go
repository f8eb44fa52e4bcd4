// Package fleet is `rewind-bench fleet`: M matches × P load bots on one
// UDP port (a host.Multi on 127.0.0.1, the bots in child processes): the
// server's CPU per player-tick as the matches grow, tick jitter and
// memory, and at the last step the same datagrams through a raw socket
// loop (vs_raw). Its Rig is what bench flood measures too.
package fleet

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/tools/bench"
)

// DefaultBotNice is the bots' niceness over the server's unless bench
// fleet is told otherwise (--bot-nice): on two cores the bots' 8
// processes, woken by every batch the server sends, kept the server's
// threads waiting for a core (docs/benchmarks.md, *What makes the ticks
// late*).
const DefaultBotNice = 10

// TickRate is the tick rate of bench fleet's game (the light test game
// at the default rate).
const TickRate = game.DefaultTickRate

// Config is what bench fleet measures.
type Config struct {
	// Steps are the match counts measured, one step each.
	Steps []int
	// Players is the load bots per match; Procs the child processes
	// running them; Workers the server's worker goroutines (0: one per
	// core); TickPhases host.Options.TickPhases.
	Players, Procs, Workers, TickPhases int
	// Window is each step's measured window (after a 1 s warm-up).
	Window time.Duration
	// Raw also measures the raw socket loop at the last step, in
	// RawRounds windows interleaved with the server's.
	Raw bool
	// SocketReader has the server's socket read by its own reader
	// goroutine as datagrams arrive (host.Options.SocketReader: the
	// scheduling before issue 33), for before/after runs of one binary.
	SocketReader bool
	// CPUProfile, when set, is the file of a CPU profile of the last
	// step's measured window.
	CPUProfile string
	// Command runs the rewind command (its executable first): the bots'
	// child processes are `Command bench fleet --bot-server ...`.
	Command []string
	// BotSched is how the bots' processes (the raw loop's too) are
	// scheduled: on a machine they share with the server, at a lower
	// CPU priority (bench.Sched.Nice), so that the server's ticks do not
	// wait for them (DefaultBotNice; the raw loop's own process runs as
	// the server does).
	BotSched bench.Sched
	// Log gets the progress lines and the children's errors (nil: none).
	Log io.Writer
	// OnStep, when set, gets each step as soon as it is measured.
	OnStep func(Step)
}

// Step is one step's measurement.
type Step struct {
	// Matches is the matches open, Players the players present at the
	// end of the window.
	Matches, Players int
	// PlayerTicks is the ticks of players present over the window.
	PlayerTicks uint64
	// CPU is this process's CPU over the window, Wall the window.
	CPU, Wall time.Duration
	// LateInputs counts inputs that came after their tick.
	LateInputs uint64
	// JitterP99 is the 99th percentile of how late a tick started.
	JitterP99 time.Duration
	// RSSMB is the resident memory after the window; HeapPerMatchKB the
	// live heap over the empty process's, per match.
	RSSMB, HeapPerMatchKB float64
	// DgIn, DgOut, BytesIn and BytesOut are the socket's traffic.
	DgIn, DgOut, BytesIn, BytesOut uint64
	// Sustained is every player present and jitter p99 under a tick.
	Sustained bool
	// UsPerPlayerTick is CPU per player-tick, in µs; VsOneMatch that over
	// the first step's.
	UsPerPlayerTick, VsOneMatch float64
	// RawUsPerPlayerTick is the raw loop's (last step with Config.Raw;
	// else 0).
	RawUsPerPlayerTick float64
	// PlayersPerCore is how many players one core would serve at
	// TickRate at UsPerPlayerTick: 1 s / (TickRate × UsPerPlayerTick).
	PlayersPerCore float64
	// Load1 is the machine's 1-minute load average after the step.
	Load1 string
	// BotNice is the bots' niceness over the server's (Config.BotSched).
	BotNice int
}

// Pairs returns the step's key=value pairs, in the order of its line.
func (st Step) Pairs() []any {
	pairs := []any{
		"matches", st.Matches,
		"players", st.Players,
		"player_ticks", st.PlayerTicks,
		"server_us_per_player_tick", fmt.Sprintf("%.2f", st.UsPerPlayerTick),
		"vs_one_match", fmt.Sprintf("%.2f", st.VsOneMatch),
		"tick_jitter_p99_ms", bench.Ms(st.JitterP99),
		"late_inputs_per_1000", fmt.Sprintf("%.1f", float64(st.LateInputs)*1000/float64(max(st.PlayerTicks, 1))),
		"rss_mb", fmt.Sprintf("%.1f", st.RSSMB),
		"heap_per_match_kb", fmt.Sprintf("%.1f", st.HeapPerMatchKB),
		"server_cpu_pct", fmt.Sprintf("%.1f", 100*st.CPU.Seconds()/st.Wall.Seconds()),
		"load1", st.Load1,
		"sustained", st.Sustained,
	}
	if st.RawUsPerPlayerTick > 0 {
		pairs = append(pairs, "raw_us_per_player_tick", fmt.Sprintf("%.2f", st.RawUsPerPlayerTick),
			"vs_raw", fmt.Sprintf("%.2f", st.UsPerPlayerTick/st.RawUsPerPlayerTick))
	}
	return append(pairs, "bot_nice", st.BotNice, "players_per_core", fmt.Sprintf("%.0f", st.PlayersPerCore))
}

// Run measures each step in turn and returns them.
func Run(ctx context.Context, cfg Config) ([]Step, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	runtime.GC()
	base := bench.HeapInuse()
	var steps []Step
	for i, m := range cfg.Steps {
		if err := ctx.Err(); err != nil {
			return steps, err
		}
		last := i == len(cfg.Steps)-1
		prof := ""
		if last {
			prof = cfg.CPUProfile
		}
		st, err := step(cfg, m, base, prof, cfg.Raw && last)
		if err != nil {
			return steps, fmt.Errorf("%d matches: %w", m, err)
		}
		st.VsOneMatch = st.UsPerPlayerTick / st.UsPerPlayerTick
		if len(steps) > 0 {
			st.VsOneMatch = st.UsPerPlayerTick / steps[0].UsPerPlayerTick
		}
		st.Load1, st.BotNice = bench.LoadAvg(), cfg.BotSched.Nice
		steps = append(steps, st)
		if cfg.OnStep != nil {
			cfg.OnStep(st)
		}
	}
	return steps, nil
}

// RawRounds is how many windows of the server, each followed by one of
// the raw loop, a step with the raw loop is measured in: the server's
// figures are the sums over its windows, the raw loop's over its own.
const RawRounds = 5

// step measures m matches of cfg.Players load bots each, with the raw
// loop in windows interleaved with the server's if raw; with profile, it
// writes a CPU profile of the measured span there.
func step(cfg Config, m int, baseHeap uint64, profile string, raw bool) (Step, error) {
	r, err := StartRig(RigConfig{Matches: m, Players: cfg.Players, Procs: cfg.Procs, Workers: cfg.Workers, TickPhases: cfg.TickPhases,
		SocketReader: cfg.SocketReader, Command: cfg.Command, BotSched: cfg.BotSched, Log: cfg.Log})
	if err != nil {
		return Step{}, err
	}
	defer r.Close()
	time.Sleep(time.Second) // warm-up
	stopProfile, err := startCPUProfile(profile)
	if err != nil {
		return Step{}, err
	}
	var w windows
	if raw {
		err = w.interleaved(cfg, r)
	} else {
		w.server(r, cfg.Window)
	}
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if err != nil {
		return Step{}, err
	}
	st := w.step(m)
	runtime.GC()
	st.RSSMB = bench.RSSMB()
	st.HeapPerMatchKB = float64(int64(bench.HeapInuse())-int64(baseHeap)) / 1024 / float64(m)
	st.Sustained = st.Players == r.Want && st.JitterP99 < time.Second/TickRate
	fmt.Fprintf(cfg.Log, "bench fleet: %d matches: %d player-ticks in %v, %v CPU, %d datagrams in, %d out; %d room updates, %d reads, %d batched sends\n",
		m, st.PlayerTicks, st.Wall.Round(time.Millisecond), st.CPU.Round(time.Millisecond), st.DgIn, st.DgOut,
		w.updates, w.reads, w.flushes)
	phase := r.Host.TickPhase()
	fmt.Fprintf(cfg.Log, "bench fleet: %d matches: tick lateness p50 %s ms, p99 %s, max %s; %d of %d ticks (%.2f per 1000) more than a phase (%s ms) late\n",
		m, bench.Ms(w.lag.Quantile(0.5)), bench.Ms(w.lag.Quantile(0.99)), bench.Ms(w.lag.Quantile(1)), w.lag.Over(phase), w.lag.N(),
		float64(w.lag.Over(phase))*1000/float64(max(w.lag.N(), 1)), bench.Ms(phase))
	fmt.Fprintf(cfg.Log, "bench fleet: %d matches: the ticks' start alone (without the wait for their batch's other rooms and its send): p50 %s ms, p99 %s, max %s\n",
		m, bench.Ms(w.startLag.Quantile(0.5)), bench.Ms(w.startLag.Quantile(0.99)), bench.Ms(w.startLag.Quantile(1)))
	fmt.Fprintf(cfg.Log, "bench fleet: %d matches: the server's threads waited %v for a CPU (%.0f%% of the window; they ran %v), %d garbage collections; bots at nice +%d ran %v (%.2f µs per player-tick)\n",
		m, w.runDelay.Round(time.Millisecond), 100*w.runDelay.Seconds()/max(w.wall.Seconds(), 1e-9), w.cpu.Round(time.Millisecond), w.gcs, cfg.BotSched.Nice,
		w.botCPU.Round(time.Millisecond), w.botCPU.Seconds()*1e6/float64(max(w.playerTicks, 1)))
	if raw {
		fmt.Fprintf(cfg.Log, "bench fleet: raw loop: %d peers, %v CPU for %d in + %d out (%d B in, %d B out); vs_raw by round %s\n",
			w.rawPeers, w.rawCPU.Round(time.Millisecond), w.rawIn, w.rawOut, w.inSize, w.outSize, w.roundRatios())
	}
	return st, nil
}

// startCPUProfile starts a CPU profile into the file path (none if path
// is ""); the function it returns stops it and closes the file.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	fh, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(fh); err != nil {
		fh.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return fh.Close()
	}, nil
}

// BotIP is the loopback address of the i-th bot process.
func BotIP(i int) string { return fmt.Sprintf("127.0.%d.%d", 1+i/250, 2+i%250) }

// Keys is what bench fleet's help says of its output.
const Keys = `One line per step (1, 10, 100, ... matches, then --matches), the last
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
datagram, no batching, scaled to the same datagrams), in a process of its
own, in 5 windows interleaved with the server's (each side's figure the
sum over its windows): raw_us_per_player_tick and vs_raw. Last on every
line, players_per_core: the players one core serves at 60 Hz at that
CPU per player-tick (1 s / (60 × server_us_per_player_tick)).`
