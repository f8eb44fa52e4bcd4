package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/tools/bench"
	"github.com/rewindnet/rewind/internal/tools/cputime"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport/udp"
)

// Config is what bench soak runs, and its child processes' settings.
type Config struct {
	// Matches is the rooms on the server, Players the real players per
	// match, Procs the player processes.
	Matches, Players, Procs int
	// Seconds is the leaving and rejoining measured.
	Seconds float64
	// Loss, Delay and Jitter are the lossy path's, each way.
	Loss          float64
	Delay, Jitter time.Duration
	// Warmup, Settle and Progress: churn before the first sample, wait
	// after every player is back before the last, and how often a
	// progress line is logged.
	Warmup, Settle, Progress time.Duration
	// Seed seeds the leaves, absences and losses.
	Seed uint64
	// Stay and Away are how long a player plays before it leaves and
	// stays away before it rejoins: MIN, MAX (uniform).
	Stay, Away [2]time.Duration
	// Path is the lossy path: netns, userspace or auto; Plant the faults
	// planted (desync, cookie, desync,cookie or ""); Profile a directory
	// for the server's heap profiles ("": none).
	Path, Plant, Profile string
	// FwdListen and FwdTo are the forwarder process's; Server, Rooms and
	// PlayerSeed a player process's.
	FwdListen, FwdTo, Server, Rooms string
	PlayerSeed                      uint64
	// Command runs the rewind command (its executable first): the
	// children are `Command bench soak --soak-... ...`.
	Command []string
	// Log gets the progress lines and the children's errors (nil: none).
	Log io.Writer
}

// Durations formats a MIN,MAX pair as its flag does.
func Durations(d [2]time.Duration) string { return d[0].String() + "," + d[1].String() }

// Result is a soak's outcome.
type Result struct {
	f                           Config
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

// Held is whether the soak held; Why says why not.
func (r *Result) Held() bool { return r.held }

// Why returns the reasons the soak did not hold.
func (r *Result) Why() []string { return r.why }

// Pairs returns the command's key=value pairs, in the order of its line.
func (r *Result) Pairs() []any {
	mb := func(b uint64) string { return fmt.Sprintf("%.2f", float64(b)/(1<<20)) }
	return []any{
		"matches", r.f.Matches,
		"players", r.f.Matches * r.f.Players,
		"seconds", r.f.Seconds,
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
		"loss", r.f.Loss,
		"loss_measured", fmt.Sprintf("%.4f", r.fwd.lossFraction()),
		"delay_ms", r.f.Delay.Milliseconds(),
		"jitter_ms", r.f.Jitter.Milliseconds(),
		"path", r.path,
		"load1", bench.LoadAvg(),
		"held", r.held,
	}
}

// judge sets held and the reasons it does not.
func (r *Result) judge() {
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

// Run runs the soak of f, logging progress to f.Log.
func Run(ctx context.Context, f Config) (*Result, error) {
	if f.Log == nil {
		f.Log = io.Discard
	}
	stderr := f.Log
	r := &Result{f: f, path: "userspace"}
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
	want := f.Matches * f.Players
	h, rooms, stopHost, err := startHost(f)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	defer stopHost()
	addr, _ := h.UDPAddr()

	kids := &soakKids{stderr: stderr}
	defer kids.stop()
	fwdAddr, err := kids.startAll(f, ns, addr.String(), rooms)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "bench soak: path=%s server %s, forwarder %s (loss %.3f, delay %v ± %v), %d players in %d processes joining\n",
		r.path, addr, fwdAddr, f.Loss, f.Delay, f.Jitter, want, f.Procs)

	// Every player in, and a warm-up.
	if err := soakWait(ctx, kids, time.Minute+time.Duration(want)*100*time.Millisecond, func() bool {
		s := h.Stats()
		return s.Players == want && s.Running == f.Matches
	}); err != nil {
		s := h.Stats()
		return nil, fmt.Errorf("the players did not all join: %d of %d in, %d of %d matches running: %w", s.Players, want, s.Running, f.Matches, err)
	}
	sr := &soakRun{f: f, h: h, kids: kids, stderr: stderr, r: r, want: want}
	fmt.Fprintf(stderr, "bench soak: every player in; warm-up: churning for %v\n", f.Warmup)
	if err := sr.churn(ctx, f.Warmup); err != nil {
		return nil, err
	}
	if !sr.back {
		return nil, errors.New("not every player came back after the warm-up")
	}
	if err := sr.measure(ctx); err != nil {
		return nil, err
	}
	r.judge()
	return r, nil
}

// startHost hosts f.Matches matches of f.Players on a UDP port of
// loopback and runs them until stop (the caller closes h).
func startHost(f Config) (h *host.Multi[testgame.Input], rooms []string, stop func(), err error) {
	var ucfg udp.Config
	ucfg.MaxUnprovenPerIP = 64 // every player comes from the forwarder's address
	h, err = host.ListenUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", host.Options{
		HostOptions: rewind.HostOptions{Server: server.Config{StartPlayers: f.Players, MaxPlayers: f.Players}, UDP: ucfg},
		MaxMatches:  f.Matches,
	})
	if err != nil {
		return nil, nil, nil, err
	}
	rooms = make([]string, f.Matches)
	for i := range rooms {
		if rooms[i], err = h.Open(""); err != nil {
			h.Close()
			return nil, nil, nil, err
		}
	}
	hctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(hctx) }()
	return h, rooms, func() { cancel(); <-done }, nil
}

// measure churns for f.Seconds after the warm-up and fills in r's
// figures: heap and goroutines before and after (with the heap profiles),
// the CPU of the server, the players and the forwarder, the players'
// counts once they stopped.
func (sr *soakRun) measure(ctx context.Context) error {
	f, r, kids, stderr := sr.f, sr.r, sr.kids, sr.stderr
	r.heapStart, r.gorStart = bench.HeapInuse(), runtime.NumGoroutine()
	if err := writeHeapProfile(f.Profile, "start.pprof"); err != nil {
		return err
	}
	r.heapMax = r.heapStart
	c0, f0 := kids.counts()
	cpu0, t0 := cputime.Process(), time.Now()
	fmt.Fprintf(stderr, "bench soak: start: heap %.2f MB, %d goroutines; churning for %gs\n", float64(r.heapStart)/(1<<20), r.gorStart, f.Seconds)
	if err := sr.churn(ctx, time.Duration(f.Seconds*float64(time.Second))); err != nil {
		return err
	}
	r.back = sr.back
	c1, f1 := kids.counts()
	cpu1, wall := cputime.Process(), time.Since(t0)
	pct := func(d time.Duration) float64 { return 100 * d.Seconds() / wall.Seconds() }
	r.serverCPU = pct(cpu1 - cpu0)
	r.playersCPU = pct(time.Duration(c1.cpuMS-c0.cpuMS) * time.Millisecond)
	r.fwdCPU = pct(time.Duration(f1.cpuMS-f0.cpuMS) * time.Millisecond)
	r.heapEnd, r.gorEnd = bench.HeapInuse(), runtime.NumGoroutine()
	if err := writeHeapProfile(f.Profile, "end.pprof"); err != nil {
		return err
	}
	r.heapMax = max(r.heapMax, r.heapEnd)
	r.serverRejoins = sr.h.Stats().Total.Rejoins
	if err := kids.stop(); err != nil {
		return err
	}
	r.counts, r.fwd = kids.counts()
	return nil
}

// NetnsPrefix begins the names of bench soak's namespaces
// (rwsoak-PID-XXXXXX).
const NetnsPrefix = "rwsoak-"

// soakPath makes the soak's network namespace (nil for --path userspace,
// or with --path auto where none can be made).
func soakPath(f Config, stderr io.Writer) (*soakNetns, error) {
	if f.Path == "userspace" {
		return nil, nil
	}
	ns, err := newSoakNetns()
	if err != nil {
		if f.Path == "netns" {
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
	f      Config
	h      *host.Multi[testgame.Input]
	kids   *soakKids
	stderr io.Writer
	r      *Result
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
	tk := time.NewTicker(sr.f.Progress)
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
	return sleepCtx(ctx, sr.f.Settle)
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

// Keys is what bench soak's help says of its run and output.
const Keys = `One server process (this one: a host.Multi over UDP on 127.0.0.1,
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
