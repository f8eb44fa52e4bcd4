// Package webdoom is `rewind-bench webdoom`: four WebDoom clients play at
// 35 Hz over loopback against rewind's tic relay (relay/webdoom) and,
// in the same run and the same way, against a bare relay (Bare: the
// least work a seal can be, over the same WebSocket library), in
// alternating rounds. The seal latency is measured per client and tic:
// from the last of the tic's cmds being sent to its bundle arriving.
package webdoom

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/rewindnet/rewind/relay/webdoom"
)

// Config is the match played.
type Config struct {
	// Players is the clients (1..4), Tics the tics played per round on
	// each relay (35 a second).
	Players, Tics int
	// Rounds is how many rounds each relay plays (0: 1), alternating:
	// bare then rewind, then rewind then bare, and so on.
	Rounds int
	// Log gets the progress lines (nil: none).
	Log io.Writer
	// Profile, when set, gets a CPU profile of rewind's rounds.
	Profile io.Writer
}

// Result is the seal latencies of both relays and rewind's counters.
type Result struct {
	// Config is what was played.
	Config Config
	// Latency holds rewind's seal latency per client per tic over all its
	// rounds, sorted; Bare the bare relay's.
	Latency, Bare []time.Duration
	// Stats is rewind's server counters summed over its rounds.
	Stats webdoom.Stats
}

// quantile returns the p-quantile of sorted latencies.
func quantile(lat []time.Duration, p float64) time.Duration {
	return lat[int(p*float64(len(lat)-1))]
}

// Quantile returns the p-quantile of rewind's latencies.
func (r Result) Quantile(p float64) time.Duration { return quantile(r.Latency, p) }

// VsBare returns rewind's p-quantile over the bare relay's.
func (r Result) VsBare(p float64) float64 {
	return float64(quantile(r.Latency, p)) / float64(quantile(r.Bare, p))
}

// Summary is the lines printed before the key=value line.
func (r Result) Summary() string {
	line := func(name string, lat []time.Duration) string {
		return fmt.Sprintf("%s seal latency (last cmd sent -> bundle received), %d samples: p50 %v p99 %v max %v\n",
			name, len(lat), quantile(lat, 0.5), quantile(lat, 0.99), lat[len(lat)-1])
	}
	return line("rewind", r.Latency) + line("bare  ", r.Bare) +
		fmt.Sprintf("rewind / bare: p50 %.2f p99 %.2f", r.VsBare(0.5), r.VsBare(0.99))
}

// Pairs returns the command's key=value pairs, in the order of its line.
func (r Result) Pairs() []any {
	us := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Microsecond)) }
	x := func(f float64) string { return fmt.Sprintf("%.2f", f) }
	lat, st := r.Latency, r.Stats
	return []any{"players", r.Config.Players, "tics", r.Config.Tics, "samples", len(lat), "p50_us", us(r.Quantile(0.5)), "p99_us", us(r.Quantile(0.99)),
		"max_us", us(lat[len(lat)-1]), "seals", st.Seals, "forced_seals", st.ForcedSeals, "fabrications", st.Fabrications,
		"rounds", max(r.Config.Rounds, 1), "bare_p50_us", us(quantile(r.Bare, 0.5)), "bare_p99_us", us(quantile(r.Bare, 0.99)),
		"p50_vs_bare", x(r.VsBare(0.5)), "p99_vs_bare", x(r.VsBare(0.99))}
}

// Run plays the rounds and measures.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	res := Result{Config: cfg}
	if cfg.Profile != nil {
		if err := pprof.StartCPUProfile(cfg.Profile); err != nil {
			return res, err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Fprintf(cfg.Log, "bench webdoom: %d players, %d rounds of %d tics at 35 Hz (%.1f s) on each relay, alternating\n",
		cfg.Players, max(cfg.Rounds, 1), cfg.Tics, float64(cfg.Tics)/35)
	for round := 0; round < max(cfg.Rounds, 1); round++ {
		for i := range 2 {
			bare := (round+i)%2 == 0
			var lat []time.Duration
			var st webdoom.Stats
			var err error
			if bare {
				lat, err = playBare(ctx, cfg)
				res.Bare = append(res.Bare, lat...)
			} else {
				lat, st, err = playRewind(ctx, cfg)
				res.Latency = append(res.Latency, lat...)
				res.Stats.Seals += st.Seals
				res.Stats.ForcedSeals += st.ForcedSeals
				res.Stats.Fabrications += st.Fabrications
			}
			if err != nil {
				return res, err
			}
			slices.Sort(lat)
			fmt.Fprintf(cfg.Log, "round %d %s: p50 %v p99 %v\n", round+1, map[bool]string{true: "bare  ", false: "rewind"}[bare], quantile(lat, 0.5), quantile(lat, 0.99))
		}
	}
	slices.Sort(res.Latency)
	slices.Sort(res.Bare)
	return res, nil
}

// playRewind plays one round against an in-process rewind relay and
// returns the latencies and the server's counters.
func playRewind(ctx context.Context, cfg Config) ([]time.Duration, webdoom.Stats, error) {
	scfg := webdoom.DefaultServerConfig()
	scfg.Countdown = time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, webdoom.Stats{}, err
	}
	var srv *webdoom.Server
	pprof.Do(ctx, pprof.Labels("relay", "rewind", "side", "server"), func(context.Context) {
		srv = webdoom.NewServer(scfg)
		go srv.Serve(ln)
	})
	defer srv.Close()
	var lat []time.Duration
	pprof.Do(ctx, pprof.Labels("relay", "rewind", "side", "clients"), func(ctx context.Context) {
		lat, err = play(ctx, cfg, "ws://"+ln.Addr().String())
	})
	return lat, srv.Stats(), err
}

// playBare plays one round against an in-process bare relay.
func playBare(ctx context.Context, cfg Config) ([]time.Duration, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b := &Bare{Players: cfg.Players}
	pprof.Do(ctx, pprof.Labels("relay", "bare", "side", "server"), func(sctx context.Context) { go b.Serve(sctx, ln) })
	var lat []time.Duration
	pprof.Do(ctx, pprof.Labels("relay", "bare", "side", "clients"), func(ctx context.Context) {
		lat, err = play(ctx, cfg, "ws://"+ln.Addr().String())
	})
	return lat, err
}
