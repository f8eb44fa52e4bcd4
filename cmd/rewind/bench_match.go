package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rewindnet/rewind/examples/sand"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/simmatch"
	"github.com/rewindnet/rewind/transport"
)

func init() {
	registerBench("match", "play a sand match over the network simulator in made-up time and check every verified tick", runBenchMatch)
}

func runBenchMatch(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench match", "rewind bench match [flags]\n\n"+benchMatchKeys, stderr)
	players := fs.Int("players", 4, "number of players")
	seconds := fs.Float64("seconds", 10, "match time to simulate, in seconds")
	grid := fs.Int("grid", 256, "side of the sand grid, in cells")
	loss := fs.Float64("loss", 0, "fraction of datagrams lost, each way")
	dup := fs.Float64("dup", 0, "fraction of datagrams duplicated")
	reorder := fs.Float64("reorder", 0, "fraction of datagrams held back behind later ones")
	latency := fs.Duration("latency", 0, "one-way latency")
	jitter := fs.Duration("jitter", 0, "± jitter on the latency")
	blackout := fs.Duration("blackout", 0, "the lowest-id player hears and says nothing for this long, starting a third of the way in")
	seed := fs.Int64("seed", 1, "seed of the network simulator")
	resend := fs.String("resend", "selective", "how the server resends ticks: selective (lost ones, plus the tick before each fresh one) or all (every unacknowledged tick in every datagram)")
	verbose := fs.Bool("v", false, "log every client's state each second to stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *players < 1 || *players > game.MaxPlayers:
		return usageError{fmt.Errorf("--players %d: want 1..%d", *players, game.MaxPlayers)}
	case *seconds <= 0 || *seconds > 3600:
		return usageError{fmt.Errorf("--seconds %g: want (0, 3600]", *seconds)}
	case *grid < 8 || *grid > sand.MaxSide:
		return usageError{fmt.Errorf("--grid %d: want 8..%d", *grid, sand.MaxSide)}
	case !fraction(*loss) || !fraction(*dup) || !fraction(*reorder):
		return usageError{errors.New("--loss, --dup and --reorder are fractions in [0, 1]")}
	case *resend != "selective" && *resend != "all":
		return usageError{fmt.Errorf("--resend %q: want selective or all", *resend)}
	case *latency < 0 || *jitter < 0 || *blackout < 0:
		return usageError{errors.New("--latency, --jitter and --blackout must not be negative")}
	}
	dur := time.Duration(*seconds * float64(time.Second))
	cfg := simmatch.Config[sand.Input]{
		Players:  *players,
		NewGame:  func() game.Game[sand.Input] { return sand.New(*grid) },
		Bot:      sand.Bot,
		Duration: dur,
		Link: transport.LinkConfig{Latency: *latency, Jitter: *jitter, Loss: *loss,
			Duplicate: *dup, Reorder: *reorder},
		Blackout: *blackout,
		Seed:     *seed,
		Log:      func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) },
	}
	cfg.Server.ResendAll = *resend == "all"
	if *verbose {
		cfg.Trace = time.Second
	}
	fmt.Fprintf(stderr, "sand %dx%d, %d players, %v of match, latency %v ±%v, loss %g, dup %g, reorder %g, blackout %v, seed %d\n",
		*grid, *grid, *players, dur, *latency, *jitter, *loss, *dup, *reorder, *blackout, *seed)
	wall := time.Now()
	res, err := simmatch.Run(cfg)
	if err != nil {
		return err
	}
	late := uint64(0)
	minVerified := uint64(0)
	for i, c := range res.Clients {
		late += c.LateInputs
		if n := res.ClientVerifiedTicks[i]; i == 0 || n < minVerified {
			minVerified = n
		}
	}
	fmt.Fprintf(stderr, "ran in %v: %d ticks, %d (client, tick) pairs verified, %d rollbacks, %d late inputs, %d stalls\n",
		time.Since(wall).Round(time.Millisecond), res.Ticks, res.VerifiedTicks, res.Rollbacks, late, res.Stalls)
	if res.FullyVerified < *players {
		fmt.Fprintf(stderr, "%d of %d clients verified only part of the match (fewest: %d of %d ticks; %d dropped): verified_equal covers only the ticks they verified\n",
			*players-res.FullyVerified, *players, minVerified, res.Ticks, res.Dropped)
	}
	keyValues(stdout,
		"players", *players,
		"ticks", res.Ticks,
		"desyncs", res.Desyncs,
		"resyncs", res.Resyncs,
		"max_rollback", res.MaxRollback,
		"verified_equal", res.VerifiedEqual,
		"server_us_per_player_tick", fmt.Sprintf("%.2f", res.ServerMicrosPerPlayerTick()),
		"bytes_per_client_per_s", fmt.Sprintf("%.0f", res.BytesPerClientPerSecond(dur)),
		"client_in_bytes_per_s", fmt.Sprintf("%.0f", float64(res.ClientBytesIn)/float64(*players)/dur.Seconds()),
		"client_out_bytes_per_s", fmt.Sprintf("%.0f", float64(res.ClientBytesOut)/float64(*players)/dur.Seconds()),
		"verified_ticks", res.VerifiedTicks,
		"clients_fully_verified", res.FullyVerified,
		"min_verified_ticks", minVerified,
		"mismatches", res.Mismatches,
		"rollbacks", res.Rollbacks,
		"late_inputs", late,
		"stalls", res.Stalls,
		"dropped", res.Dropped,
		"grid", *grid,
		"resend", *resend,
	)
	if !res.VerifiedEqual {
		return fmt.Errorf("verified worlds differ from the server's: %d of %d (client, tick) pairs, smallest verified tick %d of %d",
			res.Mismatches, res.VerifiedTicks, res.Verified, res.Ticks)
	}
	return nil
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

func fraction(f float64) bool { return f >= 0 && f <= 1 }
