package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/transport"
)

// matchFlags are the flags bench match and bench join share: the size of
// the sand match and the simulated network's link.
type matchFlags struct {
	players, grid      *int
	seconds            *float64
	loss, dup, reorder *float64 // dup and reorder are nil where not declared
	latency, jitter    *time.Duration
	seed               *int64
	maxPlayers         int
}

// addMatchFlags declares --players (default players, at most maxPlayers),
// --seconds (default seconds), --grid, --loss, --latency, --jitter and
// --seed on fs, and --dup and --reorder too when dupReorder is set.
func addMatchFlags(fs *flag.FlagSet, players, maxPlayers int, playersUsage string, seconds float64, secondsUsage string, dupReorder bool) *matchFlags {
	m := &matchFlags{maxPlayers: maxPlayers}
	m.players = fs.Int("players", players, playersUsage)
	m.seconds = fs.Float64("seconds", seconds, secondsUsage)
	m.grid = fs.Int("grid", 256, "side of the sand grid, in cells")
	m.loss = fs.Float64("loss", 0, "fraction of datagrams lost, each way")
	if dupReorder {
		m.dup = fs.Float64("dup", 0, "fraction of datagrams duplicated")
		m.reorder = fs.Float64("reorder", 0, "fraction of datagrams held back behind later ones")
	}
	m.latency = fs.Duration("latency", 0, "one-way latency")
	m.jitter = fs.Duration("jitter", 0, "± jitter on the latency")
	m.seed = fs.Int64("seed", 1, "seed of the network simulator")
	return m
}

// check returns a usageError for the first of --players, --seconds,
// --grid and the fractions that is out of range. The sign of --latency and
// --jitter is left to the caller, whose message may name more flags.
func (m *matchFlags) check() error {
	switch {
	case *m.players < 1 || *m.players > m.maxPlayers:
		return usageError{Err: fmt.Errorf("--players %d: want 1..%d", *m.players, m.maxPlayers)}
	case *m.seconds <= 0 || *m.seconds > 3600:
		return usageError{Err: fmt.Errorf("--seconds %g: want (0, 3600]", *m.seconds)}
	case *m.grid < 8 || *m.grid > sand.MaxSide:
		return usageError{Err: fmt.Errorf("--grid %d: want 8..%d", *m.grid, sand.MaxSide)}
	case m.dup == nil && !fraction(*m.loss):
		return usageError{Err: errors.New("--loss is a fraction in [0, 1]")}
	case m.dup != nil && (!fraction(*m.loss) || !fraction(*m.dup) || !fraction(*m.reorder)):
		return usageError{Err: errors.New("--loss, --dup and --reorder are fractions in [0, 1]")}
	}
	return nil
}

// duration is --seconds as a time.Duration.
func (m *matchFlags) duration() time.Duration {
	return time.Duration(*m.seconds * float64(time.Second))
}

// link is the simulated network's link the flags ask for.
func (m *matchFlags) link() transport.LinkConfig {
	l := transport.LinkConfig{Latency: *m.latency, Jitter: *m.jitter, Loss: *m.loss}
	if m.dup != nil {
		l.Duplicate, l.Reorder = *m.dup, *m.reorder
	}
	return l
}

func fraction(f float64) bool { return f >= 0 && f <= 1 }
