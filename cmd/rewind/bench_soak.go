package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/bench"
	"github.com/rewindnet/rewind/internal/cputime"
	"github.com/rewindnet/rewind/internal/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

func init() {
	registerBench("soak", "M matches × P real players for S seconds, leaving and rejoining by cookie through a lossy path: desyncs, ids kept, heap and goroutines", runBenchSoak)
}

// benchSoakKeys is what bench soak's help says of its run and output.
const benchSoakKeys = `One server process (this one: a rewind.MultiHost over UDP on 127.0.0.1,
M rooms of the light test game at 60 Hz) and M×P real players in child
processes: rewind sessions that simulate, predict, roll back and check
every verified tick's hash against the server's. Between them, a lossy
UDP forwarder of our own (another child process) drops --loss of the
datagrams each way and holds the rest --delay plus up to --jitter. With
--path netns (the default when root and ip(8) work) the players run in a
network namespace made for the run, joined to the host by a veth pair
(10.x private addresses on the pair only, no route out): they reach the
server only through the forwarder on the pair's host end. Otherwise
(--path userspace) the forwarder listens on 127.0.0.1.

Once every player joined, the players leave and rejoin for --warmup (so
that what the server makes once, on the first rejoins, is made), all come
back, the stale sessions and routes age out (--settle), and the server's
live heap (after a GC) and goroutines are sampled. Then for --seconds
each player leaves after --stay of play (2-8 s) and comes back --away
later (0.3-3 s) with its cookie (seeded by --seed; one player of each
room always stays, so that the match goes on); then every player comes
back, --settle passes and the server is sampled again. Progress lines go
to standard error; the last line on standard output has matches,
players, seconds, desyncs, rejoins (warm-up included), rejoin_id_kept
(rejoins that got their id back), rejoin_failed (dials that did not get
through, tried again), dropped (sessions the server ended),
verified_ticks, server_rejoins, heap_start_mb, heap_end_mb, heap_max_mb
(the largest of the samples, one per progress line), goroutines_start,
goroutines_end, rss_mb, server_cpu_pct, players_cpu_pct and
forwarder_cpu_pct (CPU time from the first sample to the last, % of one
core; the players' summed over their processes), loss, loss_measured (the forwarder's), delay_ms,
jitter_ms, path, load1 and held: true when no desync, every rejoin kept
its id, no session dropped, every player back at the end, the heap at the
end within 1.1× the start plus 512 KiB and no more goroutines. The command fails
(exit 1) when held=false.`

// soakFlags are bench soak's flags.
type soakFlags struct {
	matches, players, procs  int
	seconds                  float64
	loss                     float64
	delay, jitter            time.Duration
	warmup, settle, progress time.Duration
	seed                     uint64
	stay, away               durRange
	path, plant, profile     string
	fwdListen, fwdTo         string // the forwarder process (internal)
	soakServer, soakRooms    string // a player process (internal)
	playerSeed               uint64
}

func (f *soakFlags) add(fs interface {
	Var(flag.Value, string, string)
	IntVar(*int, string, int, string)
	Float64Var(*float64, string, float64, string)
	DurationVar(*time.Duration, string, time.Duration, string)
	Uint64Var(*uint64, string, uint64, string)
	StringVar(*string, string, string, string)
}) {
	fs.IntVar(&f.matches, "matches", 8, "matches (rooms) on the server")
	fs.IntVar(&f.players, "players", 4, "real players per match")
	fs.Float64Var(&f.seconds, "seconds", 600, "seconds of leaving and rejoining")
	fs.Float64Var(&f.loss, "loss", 0.05, "fraction of datagrams the lossy path drops, each way")
	fs.DurationVar(&f.delay, "delay", 20*time.Millisecond, "one-way delay of the lossy path")
	fs.DurationVar(&f.jitter, "jitter", 10*time.Millisecond, "uniform extra delay 0..jitter per datagram (reorders some)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the leaves, absences and losses")
	f.stay = durRange{[2]time.Duration{2 * time.Second, 8 * time.Second}}
	f.away = durRange{[2]time.Duration{300 * time.Millisecond, 3 * time.Second}}
	fs.Var(&f.stay, "stay", "how long a player plays before it leaves: MIN,MAX (uniform)")
	fs.Var(&f.away, "away", "how long a player stays away before it rejoins: MIN,MAX (uniform)")
	fs.StringVar(&f.path, "path", "auto", "the lossy path: netns (players in a network namespace behind a veth pair and the forwarder), userspace (the forwarder on 127.0.0.1), or auto (netns when it can be made)")
	fs.IntVar(&f.procs, "procs", 0, "player processes (default one per match, at most 4)")
	fs.DurationVar(&f.warmup, "warmup", 20*time.Second, "leaving and rejoining after every player joined, before every player comes back and the first sample (so that what the server makes once, on the first rejoin, is in both samples)")
	fs.DurationVar(&f.settle, "settle", 12*time.Second, "wait after every player is back before the last sample (the server forgets a gone peer's route after twice the player timeout)")
	fs.DurationVar(&f.progress, "progress", 10*time.Second, "print a progress line this often")
	fs.StringVar(&f.plant, "plant", "", "plant a fault the soak must catch (for its tests): desync (one player runs a game with a determinism bug), cookie (one rejoin sends a cookie the server never gave), or desync,cookie")
	fs.StringVar(&f.profile, "heap-profile", "", "write the server's heap profile at the start and end samples to this directory (start.pprof, end.pprof: go tool pprof -base start.pprof end.pprof)")
	fs.StringVar(&f.fwdListen, "soak-forward", "", "internal: run as the lossy forwarder of bench soak, listening here")
	fs.StringVar(&f.fwdTo, "soak-to", "", "internal: the forwarder's target (the server)")
	fs.StringVar(&f.soakServer, "soak-server", "", "internal: run as a player process of bench soak against this address")
	fs.StringVar(&f.soakRooms, "soak-rooms", "", "internal: the player process's rooms")
	fs.Uint64Var(&f.playerSeed, "soak-seed", 0, "internal: the player process's seed")
}

func (f *soakFlags) check() error {
	switch {
	case f.matches < 1 || f.matches > 256:
		return usageError{fmt.Errorf("--matches %d: want 1..256", f.matches)}
	case f.players < 2 || f.players > 16:
		return usageError{fmt.Errorf("--players %d: want 2..16 (one player of each match stays while the others churn)", f.players)}
	case f.seconds <= 0:
		return usageError{errors.New("--seconds must be positive")}
	case f.loss < 0 || f.loss >= 1:
		return usageError{fmt.Errorf("--loss %v: want 0 <= loss < 1", f.loss)}
	case f.delay < 0 || f.jitter < 0:
		return usageError{errors.New("--delay and --jitter must not be negative")}
	case f.path != "auto" && f.path != "netns" && f.path != "userspace":
		return usageError{fmt.Errorf("--path %q: want auto, netns or userspace", f.path)}
	case f.plant != "" && f.plant != "desync" && f.plant != "cookie" && f.plant != "desync,cookie":
		return usageError{fmt.Errorf("--plant %q: want desync, cookie or both (desync,cookie)", f.plant)}
	case f.procs < 0 || f.procs > f.matches:
		return usageError{fmt.Errorf("--procs %d: want 1..--matches", f.procs)}
	case f.progress <= 0:
		return usageError{errors.New("--progress must be positive")}
	}
	if f.stay.d[0] < 500*time.Millisecond {
		return usageError{fmt.Errorf("--stay %v: at least 500ms (a player leaves only once it verified 30 ticks)", &f.stay)}
	}
	if f.procs == 0 {
		f.procs = min(f.matches, 4)
	}
	return nil
}

func runBenchSoak(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench soak", "rewind bench soak --matches M --players P --seconds S [--loss F] [flags]\n\n"+benchSoakKeys, stderr)
	var f soakFlags
	f.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case f.fwdListen != "":
		return runSoakForwarder(ctx, f, soakStdin, stdout)
	case f.soakServer != "":
		return runSoakPlayers(ctx, f, soakStdin, stdout, stderr)
	}
	if err := f.check(); err != nil {
		return err
	}
	stderr = &bench.SyncWriter{W: stderr} // the children's output is copied in by goroutines
	r, err := soak(ctx, f, stderr)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("bench soak: interrupted (cleaned up): %w", err)
		}
		return err
	}
	r.print(stdout)
	if !r.held {
		return errors.New("bench soak: did not hold (held=false): " + strings.Join(r.why, "; "))
	}
	return nil
}

// soakResult is a soak's outcome.
type soakResult struct {
	f                           soakFlags
	path                        string
	counts                      soakCounts
	serverRejoins               uint64
	heapStart, heapEnd, heapMax uint64
	gorStart, gorEnd            int
	back                        bool // every player back at the end
	fwd                         fwdCounts
	// CPU over the measured run (from the start sample to the end
	// sample), of the server (this process), the player processes and
	// the forwarder, per wall time: % of one core.
	serverCPU, playersCPU, fwdCPU float64
	held                          bool
	why                           []string
}

func (r *soakResult) print(w io.Writer) {
	mb := func(b uint64) string { return fmt.Sprintf("%.2f", float64(b)/(1<<20)) }
	keyValues(w,
		"matches", r.f.matches,
		"players", r.f.matches*r.f.players,
		"seconds", r.f.seconds,
		"desyncs", r.counts.desyncs,
		"rejoins", r.counts.rejoins,
		"rejoin_id_kept", r.counts.kept,
		"rejoin_failed", r.counts.failed,
		"dropped", r.counts.dropped,
		"verified_ticks", r.counts.verified,
		"server_rejoins", r.serverRejoins,
		"heap_start_mb", mb(r.heapStart),
		"heap_end_mb", mb(r.heapEnd),
		"heap_max_mb", mb(r.heapMax),
		"goroutines_start", r.gorStart,
		"goroutines_end", r.gorEnd,
		"rss_mb", fmt.Sprintf("%.1f", bench.RSSMB()),
		"server_cpu_pct", fmt.Sprintf("%.1f", r.serverCPU),
		"players_cpu_pct", fmt.Sprintf("%.1f", r.playersCPU),
		"forwarder_cpu_pct", fmt.Sprintf("%.1f", r.fwdCPU),
		"loss", r.f.loss,
		"loss_measured", fmt.Sprintf("%.4f", r.fwd.lossFraction()),
		"delay_ms", r.f.delay.Milliseconds(),
		"jitter_ms", r.f.jitter.Milliseconds(),
		"path", r.path,
		"load1", bench.LoadAvg(),
		"held", r.held,
	)
}

// judge sets held and the reasons it does not.
func (r *soakResult) judge() {
	c := r.counts
	fail := func(cond bool, why string, a ...any) {
		if cond {
			r.why = append(r.why, fmt.Sprintf(why, a...))
		}
	}
	fail(c.desyncs > 0, "%d desyncs", c.desyncs)
	fail(c.rejoins == 0, "no rejoin happened")
	fail(c.kept != c.rejoins, "%d of %d rejoins lost their id", c.rejoins-c.kept, c.rejoins)
	fail(c.dropped > 0, "%d sessions dropped", c.dropped)
	fail(c.verified == 0, "no tick verified")
	fail(!r.back, "not every player came back at the end")
	fail(r.heapEnd > r.heapStart+r.heapStart/10+512<<10, "heap grew from %d to %d bytes", r.heapStart, r.heapEnd)
	fail(r.gorEnd > r.gorStart, "goroutines grew from %d to %d", r.gorStart, r.gorEnd)
	r.held = len(r.why) == 0
}

// soak runs the soak of f, printing progress to stderr.
func soak(ctx context.Context, f soakFlags, stderr io.Writer) (*soakResult, error) {
	r := &soakResult{f: f, path: "userspace"}
	ns, err := soakPath(f, stderr)
	if err != nil {
		return nil, err
	}
	if ns != nil {
		r.path = "netns"
		defer func() {
			if err := ns.close(); err != nil {
				fmt.Fprintf(stderr, "bench soak: cleaning up the namespace: %v\n", err)
			}
		}()
	}
	want := f.matches * f.players
	var h *rewind.MultiHost[testgame.Input]
	var ucfg transport.UDPConfig
	ucfg.MaxUnprovenPerIP = 64 // every player comes from the forwarder's address
	h, err = rewind.HostUDPMulti[testgame.Input](&testgame.Game{}, "127.0.0.1:0", rewind.MultiHostOptions{
		HostOptions: rewind.HostOptions{Server: server.Config{StartPlayers: f.players, MaxPlayers: f.players}, UDP: ucfg},
		MaxMatches:  f.matches,
	})
	if err != nil {
		return nil, err
	}
	defer h.Close()
	rooms := make([]string, f.matches)
	for i := range rooms {
		if rooms[i], err = h.Open(""); err != nil {
			return nil, err
		}
	}
	hctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(hctx) }()
	defer func() { cancel(); <-done }()
	addr, _ := h.UDPAddr()

	kids := &soakKids{stderr: stderr}
	defer kids.stop()
	fwdAddr, err := kids.startAll(f, ns, addr.String(), rooms)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "bench soak: path=%s server %s, forwarder %s (loss %.3f, delay %v ± %v), %d players in %d processes joining\n",
		r.path, addr, fwdAddr, f.loss, f.delay, f.jitter, want, f.procs)

	// Every player in, and a warm-up.
	if err := soakWait(ctx, kids, time.Minute+time.Duration(want)*100*time.Millisecond, func() bool {
		s := h.Stats()
		return s.Players == want && s.Running == f.matches
	}); err != nil {
		s := h.Stats()
		return nil, fmt.Errorf("the players did not all join: %d of %d in, %d of %d matches running: %w", s.Players, want, s.Running, f.matches, err)
	}
	sr := &soakRun{f: f, h: h, kids: kids, stderr: stderr, r: r, want: want}
	fmt.Fprintf(stderr, "bench soak: every player in; warm-up: churning for %v\n", f.warmup)
	if err := sr.churn(ctx, f.warmup); err != nil {
		return nil, err
	}
	if !sr.back {
		return nil, errors.New("not every player came back after the warm-up")
	}
	r.heapStart, r.gorStart = bench.HeapInuse(), runtime.NumGoroutine()
	if err := writeHeapProfile(f.profile, "start.pprof"); err != nil {
		return nil, err
	}
	r.heapMax = r.heapStart
	c0, f0 := kids.counts()
	cpu0, t0 := cputime.Process(), time.Now()
	fmt.Fprintf(stderr, "bench soak: start: heap %.2f MB, %d goroutines; churning for %gs\n", float64(r.heapStart)/(1<<20), r.gorStart, f.seconds)
	if err := sr.churn(ctx, time.Duration(f.seconds*float64(time.Second))); err != nil {
		return nil, err
	}
	r.back = sr.back
	c1, f1 := kids.counts()
	cpu1, wall := cputime.Process(), time.Since(t0)
	pct := func(d time.Duration) float64 { return 100 * d.Seconds() / wall.Seconds() }
	r.serverCPU = pct(cpu1 - cpu0)
	r.playersCPU = pct(time.Duration(c1.cpuMS-c0.cpuMS) * time.Millisecond)
	r.fwdCPU = pct(time.Duration(f1.cpuMS-f0.cpuMS) * time.Millisecond)
	r.heapEnd, r.gorEnd = bench.HeapInuse(), runtime.NumGoroutine()
	if err := writeHeapProfile(f.profile, "end.pprof"); err != nil {
		return nil, err
	}
	r.heapMax = max(r.heapMax, r.heapEnd)
	r.serverRejoins = h.Stats().Total.Rejoins
	if err := kids.stop(); err != nil {
		return nil, err
	}
	r.counts, r.fwd = kids.counts()
	r.judge()
	return r, nil
}

// soakNetnsPrefix begins the names of bench soak's namespaces
// (rwsoak-PID-XXXXXX).
const soakNetnsPrefix = "rwsoak-"

// soakPath makes the soak's network namespace (nil for --path userspace,
// or with --path auto where none can be made).
func soakPath(f soakFlags, stderr io.Writer) (*soakNetns, error) {
	if f.path == "userspace" {
		return nil, nil
	}
	ns, err := newSoakNetns()
	if err != nil {
		if f.path == "netns" {
			return nil, fmt.Errorf("--path netns: %w", err)
		}
		fmt.Fprintf(stderr, "bench soak: no network namespace (%v): the lossy path runs on 127.0.0.1\n", err)
		return nil, nil
	}
	fmt.Fprintf(stderr, "bench soak: namespace %s, veth %s %s <-> %s\n", ns.name, ns.hostIf, ns.hostIP, ns.nsIP)
	return ns, nil
}

// soakRun is a soak under way, between its setup and its result.
type soakRun struct {
	f      soakFlags
	h      *rewind.MultiHost[testgame.Input]
	kids   *soakKids
	stderr io.Writer
	r      *soakResult
	want   int
	back   bool // every player came back after the last churn
}

// churn has the players leave and rejoin for d, printing progress, then
// brings every player back (back says whether all came within a minute)
// and waits --settle for the stale sessions and routes to age out.
func (sr *soakRun) churn(ctx context.Context, d time.Duration) error {
	sr.kids.tell("churn")
	start := time.Now()
	end := start.Add(d)
	tk := time.NewTicker(sr.f.progress)
	defer tk.Stop()
	for time.Now().Before(end) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-sr.kids.failed:
			return sr.kids.err()
		case now := <-tk.C:
			heap := bench.HeapInuse()
			sr.r.heapMax = max(sr.r.heapMax, heap)
			c, fw := sr.kids.counts()
			fmt.Fprintf(sr.stderr, "bench soak: t=%ds players=%d/%d rejoins=%d kept=%d desyncs=%d dropped=%d verified=%d heap_mb=%.2f goroutines=%d fwd_dropped=%d load1=%s\n",
				int(now.Sub(start).Seconds()), sr.h.Stats().Players, sr.want, c.rejoins, c.kept, c.desyncs, c.dropped, c.verified,
				float64(heap)/(1<<20), runtime.NumGoroutine(), fw.droppedUp+fw.droppedDown, bench.LoadAvg())
		case <-time.After(time.Until(end)):
		}
	}
	sr.kids.tell("settle")
	err := soakWait(ctx, sr.kids, time.Minute, func() bool {
		c, _ := sr.kids.counts()
		return sr.h.Stats().Players == sr.want && c.present == sr.want
	})
	sr.back = err == nil
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return sleepCtx(ctx, sr.f.settle)
}

// soakWait polls cond every 50 ms until it holds; it fails when limit
// passes, ctx ends or a child process fails first.
func soakWait(ctx context.Context, kids *soakKids, limit time.Duration, cond func() bool) error {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %v", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-kids.failed:
			return kids.err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// writeHeapProfile writes this process's heap profile to dir/name (not
// without a dir).
func writeHeapProfile(dir, name string) error {
	if dir == "" {
		return nil
	}
	fh, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(fh, 0); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// durRange is a flag of two durations, MIN,MAX.
type durRange struct{ d [2]time.Duration }

func (r *durRange) String() string { return r.d[0].String() + "," + r.d[1].String() }

func (r *durRange) Set(v string) error {
	a, b, ok := strings.Cut(v, ",")
	lo, err1 := time.ParseDuration(strings.TrimSpace(a))
	hi, err2 := time.ParseDuration(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || lo < 0 || hi < lo {
		return fmt.Errorf("want MIN,MAX durations, MIN <= MAX (2s,8s)")
	}
	r.d = [2]time.Duration{lo, hi}
	return nil
}
