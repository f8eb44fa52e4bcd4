package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rewindnet/rewind/internal/tools/bench"
	benchsoak "github.com/rewindnet/rewind/internal/tools/bench/soak"
)

func init() {
	registerBench("soak", "M matches × P real players for S seconds, leaving and rejoining by cookie through a lossy path: desyncs, ids kept, heap and goroutines", runBenchSoak)
}

// soakFlags are bench soak's flags: the Config they fill.
type soakFlags struct{ benchsoak.Config }

func (f *soakFlags) add(fs interface {
	Var(flag.Value, string, string)
	IntVar(*int, string, int, string)
	Float64Var(*float64, string, float64, string)
	DurationVar(*time.Duration, string, time.Duration, string)
	Uint64Var(*uint64, string, uint64, string)
	StringVar(*string, string, string, string)
}) {
	fs.IntVar(&f.Matches, "matches", 8, "matches (rooms) on the server")
	fs.IntVar(&f.Players, "players", 4, "real players per match")
	fs.Float64Var(&f.Seconds, "seconds", 600, "seconds of leaving and rejoining")
	fs.Float64Var(&f.Loss, "loss", 0.05, "fraction of datagrams the lossy path drops, each way")
	fs.DurationVar(&f.Delay, "delay", 20*time.Millisecond, "one-way delay of the lossy path")
	fs.DurationVar(&f.Jitter, "jitter", 10*time.Millisecond, "uniform extra delay 0..jitter per datagram (reorders some)")
	fs.Uint64Var(&f.Seed, "seed", 1, "seed of the leaves, absences and losses")
	f.Stay = [2]time.Duration{2 * time.Second, 8 * time.Second}
	f.Away = [2]time.Duration{300 * time.Millisecond, 3 * time.Second}
	fs.Var(&durRange{&f.Stay}, "stay", "how long a player plays before it leaves: MIN,MAX (uniform)")
	fs.Var(&durRange{&f.Away}, "away", "how long a player stays away before it rejoins: MIN,MAX (uniform)")
	fs.StringVar(&f.Path, "path", "auto", "the lossy path: netns (players in a network namespace behind a veth pair and the forwarder), userspace (the forwarder on 127.0.0.1), or auto (netns when it can be made)")
	fs.IntVar(&f.Procs, "procs", 0, "player processes (default one per match, at most 4)")
	fs.DurationVar(&f.Warmup, "warmup", 20*time.Second, "leaving and rejoining after every player joined, before every player comes back and the first sample (so that what the server makes once, on the first rejoin, is in both samples)")
	fs.DurationVar(&f.Settle, "settle", 12*time.Second, "wait after every player is back before the last sample (the server forgets a gone peer's route after twice the player timeout)")
	fs.DurationVar(&f.Progress, "progress", 10*time.Second, "print a progress line this often")
	fs.StringVar(&f.Plant, "plant", "", "plant a fault the soak must catch (for its tests): desync (one player runs a game with a determinism bug), cookie (one rejoin sends a cookie the server never gave), or desync,cookie")
	fs.StringVar(&f.Profile, "heap-profile", "", "write the server's heap profile at the start and end samples to this directory (start.pprof, end.pprof: go tool pprof -base start.pprof end.pprof)")
	fs.StringVar(&f.FwdListen, "soak-forward", "", "internal: run as the lossy forwarder of bench soak, listening here")
	fs.StringVar(&f.FwdTo, "soak-to", "", "internal: the forwarder's target (the server)")
	fs.StringVar(&f.Server, "soak-server", "", "internal: run as a player process of bench soak against this address")
	fs.StringVar(&f.Rooms, "soak-rooms", "", "internal: the player process's rooms")
	fs.Uint64Var(&f.PlayerSeed, "soak-seed", 0, "internal: the player process's seed")
}

func (f *soakFlags) check() error {
	switch {
	case f.Matches < 1 || f.Matches > 256:
		return usageError{Err: fmt.Errorf("--matches %d: want 1..256", f.Matches)}
	case f.Players < 2 || f.Players > 16:
		return usageError{Err: fmt.Errorf("--players %d: want 2..16 (one player of each match stays while the others churn)", f.Players)}
	case f.Seconds <= 0:
		return usageError{Err: errors.New("--seconds must be positive")}
	case f.Loss < 0 || f.Loss >= 1:
		return usageError{Err: fmt.Errorf("--loss %v: want 0 <= loss < 1", f.Loss)}
	case f.Delay < 0 || f.Jitter < 0:
		return usageError{Err: errors.New("--delay and --jitter must not be negative")}
	case f.Path != "auto" && f.Path != "netns" && f.Path != "userspace":
		return usageError{Err: fmt.Errorf("--path %q: want auto, netns or userspace", f.Path)}
	case f.Plant != "" && f.Plant != "desync" && f.Plant != "cookie" && f.Plant != "desync,cookie":
		return usageError{Err: fmt.Errorf("--plant %q: want desync, cookie or both (desync,cookie)", f.Plant)}
	case f.Procs < 0 || f.Procs > f.Matches:
		return usageError{Err: fmt.Errorf("--procs %d: want 1..--matches", f.Procs)}
	case f.Progress <= 0:
		return usageError{Err: errors.New("--progress must be positive")}
	}
	if f.Stay[0] < 500*time.Millisecond {
		return usageError{Err: fmt.Errorf("--stay %s: at least 500ms (a player leaves only once it verified 30 ticks)", benchsoak.Durations(f.Stay))}
	}
	if f.Procs == 0 {
		f.Procs = min(f.Matches, 4)
	}
	return nil
}

func runBenchSoak(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench soak", "rewind-bench soak --matches M --players P --seconds S [--loss F] [flags]\n\n"+benchsoak.Keys, stderr)
	var f soakFlags
	f.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	switch {
	case f.FwdListen != "":
		return benchsoak.RunForwarder(ctx, f.Config, os.Stdin, stdout)
	case f.Server != "":
		return benchsoak.RunPlayers(ctx, f.Config, os.Stdin, stdout, stderr)
	}
	if err := f.check(); err != nil {
		return err
	}
	var err error
	if f.Command, err = childCommand(); err != nil {
		return err
	}
	f.Log = &bench.SyncWriter{W: stderr} // the children's output is copied in by goroutines
	r, err := benchsoak.Run(ctx, f.Config)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("bench soak: interrupted (cleaned up): %w", err)
		}
		return err
	}
	keyValues(stdout, r.Pairs()...)
	if !r.Held() {
		return errors.New("bench soak: did not hold (held=false): " + strings.Join(r.Why(), "; "))
	}
	return nil
}

// durRange is a flag of two durations, MIN,MAX, set into *d.
type durRange struct{ d *[2]time.Duration }

func (r *durRange) String() string {
	if r.d == nil {
		return ""
	}
	return benchsoak.Durations(*r.d)
}

func (r *durRange) Set(v string) error {
	a, b, ok := strings.Cut(v, ",")
	lo, err1 := time.ParseDuration(strings.TrimSpace(a))
	hi, err2 := time.ParseDuration(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || lo < 0 || hi < lo {
		return fmt.Errorf("want MIN,MAX durations, MIN <= MAX (2s,8s)")
	}
	*r.d = [2]time.Duration{lo, hi}
	return nil
}
