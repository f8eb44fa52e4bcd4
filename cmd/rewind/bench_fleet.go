package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

func init() {
	registerBench("fleet", "M matches × P load bots on one UDP port: server CPU per player-tick as the matches grow, tick jitter, memory", runBenchFleet)
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

// fleetStep is one step's measurement.
type fleetStep struct {
	matches, players   int
	playerTicks        uint64
	cpu, wall          time.Duration
	lateInputs         uint64
	jitterP99          time.Duration
	rssMB              float64
	heapPerMatchKB     float64
	dgIn, dgOut        uint64
	bytesIn, bytesOut  uint64
	sustained          bool
	usPerPlayerTick    float64
	rawUsPerPlayerTick float64
}

func runBenchFleet(args []string, stdout, stderr io.Writer) error {
	stderr = &syncWriter{w: stderr}
	fs := newFlags("bench fleet", "rewind bench fleet --matches M --players P --seconds S [flags]\n\n"+benchFleetKeys, stderr)
	var f fleetFlags
	f.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.botServer != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if f.botRaw > 0 {
			return runRawBots(ctx, f.botServer, f.botLocal, f.botCount, f.botRaw, fleetTickRate)
		}
		return runLoadBots(ctx, f.botServer, f.botLocal, splitRooms(f.botRooms), fleetTickRate)
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
	runtime.GC()
	base := heapInuse()
	var first *fleetStep
	for i, m := range steps {
		prof := ""
		if i == len(steps)-1 {
			prof = f.cpuProfile
		}
		st, err := fleetRun(f, m, base, prof, stderr)
		if err != nil {
			return fmt.Errorf("%d matches: %w", m, err)
		}
		if first == nil {
			first = &st
		}
		if f.raw && i == len(steps)-1 {
			if err := fleetRaw(f, &st, stderr); err != nil {
				return fmt.Errorf("raw loop: %w", err)
			}
		}
		printFleetStep(stdout, st, first)
	}
	return nil
}

// printFleetStep prints one step's key=value line.
func printFleetStep(w io.Writer, st fleetStep, first *fleetStep) {
	pairs := []any{
		"matches", st.matches,
		"players", st.players,
		"player_ticks", st.playerTicks,
		"server_us_per_player_tick", fmt.Sprintf("%.2f", st.usPerPlayerTick),
		"vs_one_match", fmt.Sprintf("%.2f", st.usPerPlayerTick/first.usPerPlayerTick),
		"tick_jitter_p99_ms", ms(st.jitterP99),
		"late_inputs_per_1000", fmt.Sprintf("%.1f", float64(st.lateInputs)*1000/float64(max(st.playerTicks, 1))),
		"rss_mb", fmt.Sprintf("%.1f", st.rssMB),
		"heap_per_match_kb", fmt.Sprintf("%.1f", st.heapPerMatchKB),
		"server_cpu_pct", fmt.Sprintf("%.1f", 100*st.cpu.Seconds()/st.wall.Seconds()),
		"load1", loadAvg(),
		"sustained", st.sustained,
	}
	if st.rawUsPerPlayerTick > 0 {
		pairs = append(pairs, "raw_us_per_player_tick", fmt.Sprintf("%.2f", st.rawUsPerPlayerTick),
			"vs_raw", fmt.Sprintf("%.2f", st.usPerPlayerTick/st.rawUsPerPlayerTick))
	}
	keyValues(w, pairs...)
}

// fleetRig is a MultiHost on 127.0.0.1 with m rooms, each with its
// match of players load bots, the bots in child processes: what bench
// fleet measures at each step and bench flood twice.
type fleetRig struct {
	h      *rewind.MultiHost[testgame.Input]
	addr   netip.AddrPort
	m      int
	want   int // players in all
	cancel context.CancelFunc
	done   chan error
	bots   []*exec.Cmd
}

// startFleetRig opens the host, m rooms and their bots (players per
// room, dealt round procs processes) and waits until they play (past a
// deadline, with at least half of them, saying so on stderr).
func startFleetRig(m, players, procs, workers, phases int, ucfg transport.UDPConfig, stderr io.Writer) (_ *fleetRig, err error) {
	ucfg.MaxUnprovenPerIP = 64 // the bots' handshakes come 16 at a time per address
	h, err := rewind.HostUDPMulti[testgame.Input](&testgame.Game{}, "127.0.0.1:0", rewind.MultiHostOptions{
		HostOptions: rewind.HostOptions{Server: server.Config{StartPlayers: players, MaxPlayers: players}, UDP: ucfg},
		MaxMatches:  m,
		Workers:     workers,
		TickPhases:  phases,
	})
	if err != nil {
		return nil, err
	}
	rooms := make([]string, m)
	for i := range rooms {
		if rooms[i], err = h.Open(""); err != nil {
			h.Close()
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &fleetRig{h: h, m: m, want: m * players, cancel: cancel, done: make(chan error, 1)}
	r.addr, _ = h.UDPAddr()
	go func() { r.done <- h.Run(ctx) }()
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	// The bots: every room P times, dealt round the processes.
	per := make([][]string, min(procs, m*players))
	k := 0
	for _, code := range rooms {
		for range players {
			per[k%len(per)] = append(per[k%len(per)], code)
			k++
		}
	}
	for i, rs := range per {
		cmd, err := startBotProc(stderr, "fleet", "--bot-server", r.addr.String(), "--bot-local", botIP(i), "--bot-rooms", strings.Join(rs, ","))
		if err != nil {
			return nil, err
		}
		r.bots = append(r.bots, cmd)
	}
	// Bots that lose their session (reaped as unproven on a starved
	// machine) dial again; past the deadline the step is measured with
	// the players there, and says so (players=, sustained=false).
	deadline := time.Now().Add(30*time.Second + time.Duration(r.want)*20*time.Millisecond)
	for s := h.Stats(); s.Players < r.want || s.Running < m; s = h.Stats() {
		if time.Now().After(deadline) {
			if s.Players < r.want/2 {
				return nil, fmt.Errorf("the bots did not join: %d of %d players, %d of %d matches running", s.Players, r.want, s.Running, m)
			}
			fmt.Fprintf(stderr, "bench: %d matches: measuring with %d of %d players (%d matches running)\n", m, s.Players, r.want, s.Running)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return r, nil
}

// close stops the bots and the host.
func (r *fleetRig) close() {
	stopBots(r.bots)
	r.cancel()
	<-r.done
	r.h.Close()
}

// fleetSample is what a measurement window starts and ends with.
type fleetSample struct {
	stats   rewind.MultiHostStats
	lag     rewind.Lag
	cpu     time.Duration // this process's, user+system
	at      time.Time
	mallocs uint64 // heap objects allocated by this process so far
	// kernelDrops counts the datagrams the kernel dropped for the
	// server's socket (its receive buffer full), where it says.
	kernelDrops uint64
}

func (r *fleetRig) sample() fleetSample {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return fleetSample{stats: r.h.Stats(), lag: r.h.TickLag(), cpu: selfCPU(), at: time.Now(), mallocs: ms.Mallocs,
		kernelDrops: socketDrops(r.addr.Port())}
}

// socketDrops returns the drops column of /proc/net/udp for the IPv4
// socket on 127.0.0.1:port: datagrams the kernel dropped because the
// socket's receive buffer was full. 0 where there is no such file.
func socketDrops(port uint16) uint64 {
	b, err := os.ReadFile("/proc/net/udp")
	if err != nil {
		return 0
	}
	local := fmt.Sprintf("0100007F:%04X", port)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 12 && f[1] == local {
			n, _ := strconv.ParseUint(f[len(f)-1], 10, 64)
			return n
		}
	}
	return 0
}

// fleetRun measures m matches of f.players load bots each; with profile,
// it writes a CPU profile of the measured window there.
func fleetRun(f fleetFlags, m int, baseHeap uint64, profile string, stderr io.Writer) (fleetStep, error) {
	r, err := startFleetRig(m, f.players, f.procs, f.workers, f.tickPhases, transport.UDPConfig{}, stderr)
	if err != nil {
		return fleetStep{}, err
	}
	defer r.close()
	time.Sleep(time.Second) // warm-up
	stopProfile, err := startCPUProfile(profile)
	if err != nil {
		return fleetStep{}, err
	}
	a := r.sample()
	time.Sleep(time.Duration(f.seconds * float64(time.Second)))
	b := r.sample()
	if err := stopProfile(); err != nil {
		return fleetStep{}, err
	}
	s0, s1 := a.stats, b.stats
	lag := b.lag.Sub(a.lag)
	runtime.GC()
	st := fleetStep{
		matches: m, players: s1.Players,
		playerTicks: s1.Total.PlayerTicks - s0.Total.PlayerTicks,
		cpu:         b.cpu - a.cpu, wall: b.at.Sub(a.at),
		lateInputs: s1.Total.LateInputs - s0.Total.LateInputs,
		jitterP99:  lag.Quantile(0.99),
		rssMB:      rssMB(),
		dgIn:       s1.UDP.DatagramsIn - s0.UDP.DatagramsIn,
		dgOut:      s1.UDP.DatagramsOut - s0.UDP.DatagramsOut,
		bytesIn:    s1.UDP.BytesIn - s0.UDP.BytesIn,
		bytesOut:   s1.UDP.BytesOut - s0.UDP.BytesOut,
	}
	st.heapPerMatchKB = float64(int64(heapInuse())-int64(baseHeap)) / 1024 / float64(m)
	st.usPerPlayerTick = st.cpu.Seconds() * 1e6 / float64(max(st.playerTicks, 1))
	st.sustained = s1.Players == r.want && st.jitterP99 < time.Second/fleetTickRate
	fmt.Fprintf(stderr, "bench fleet: %d matches: %d player-ticks in %v, %v CPU, %d datagrams in, %d out; %d room updates, %d reads, %d batched sends\n",
		m, st.playerTicks, st.wall.Round(time.Millisecond), st.cpu.Round(time.Millisecond), st.dgIn, st.dgOut,
		s1.Updates-s0.Updates, s1.UDP.Reads-s0.UDP.Reads, s1.UDP.Flushes-s0.UDP.Flushes)
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

// botIP is the loopback address of the i-th bot process.
func botIP(i int) string { return fmt.Sprintf("127.0.%d.%d", 1+i/250, 2+i%250) }

// botCommand returns the command of a child process of a benchmark (bench
// fleet's load bots, bench flood's flooder): this binary, as `rewind bench
// BENCH ARGS` (tests run their own binary).
var botCommand = func(bench string, args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(exe, append([]string{"bench", bench}, args...)...), nil
}

// startBotProc starts a child process of bench BENCH.
func startBotProc(stderr io.Writer, bench string, args ...string) (*exec.Cmd, error) {
	return startChild(nil, stderr, bench, args...)
}

// startChild starts a child process of bench BENCH with its standard
// output to stdout (nil: none) and its errors to stderr.
func startChild(stdout, stderr io.Writer, bench string, args ...string) (*exec.Cmd, error) {
	cmd, err := botCommand(bench, args...)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// stopBots ends the bot processes (SIGTERM, then SIGKILL after 3 s) and
// waits for them.
func stopBots(cmds []*exec.Cmd) {
	for _, c := range cmds {
		c.Process.Signal(syscall.SIGTERM)
	}
	for _, c := range cmds {
		t := time.AfterFunc(3*time.Second, func() { c.Process.Kill() })
		c.Wait()
		t.Stop()
	}
}

// heapInuse returns the live heap in use after a GC.
func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// rssMB returns this process's resident memory (VmRSS), in MiB.
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// loadAvg returns the machine's 1-minute load average, or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// fleetTickRate is the tick rate of bench fleet's game (the light test
// game at the default rate).
const fleetTickRate = game.DefaultTickRate

// syncWriter serializes writes to w: a benchmark's log lines and its
// child processes' (each copied by a goroutine of os/exec) share stderr.
// It has no ReadFrom, so that os/exec copies into it a Write at a time
// (a bytes.Buffer's ReadFrom, left waiting on the child, would write over
// what was written meanwhile).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
