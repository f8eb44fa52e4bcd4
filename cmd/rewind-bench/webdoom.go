package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	benchwebdoom "github.com/rewindnet/rewind/internal/tools/bench/webdoom"
)

func init() {
	registerBench("webdoom", "WebDoom relay seal latency over loopback beside a bare relay (4 players at 35 Hz)", runBenchWebDoom)
}

// runBenchWebDoom plays 4 clients at 35 Hz against an in-process server
// and a bare relay over loopback, in alternating rounds, and reports the
// seal latency of both (internal/tools/bench/webdoom).
func runBenchWebDoom(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench webdoom", "rewind-bench webdoom [flags]", stderr)
	tics := fs.Int("tics", 420, "tics each relay plays per round (35 a second)")
	rounds := fs.Int("rounds", 3, "rounds: each plays the bare relay and rewind's, alternating which goes first")
	players := fs.Int("players", 4, "players (1..4)")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (goroutines labelled relay=rewind|bare, side=server|clients)")
	serveBare := fs.String("serve-bare", "", "only serve the bare relay on this address (host:port) for outside clients until interrupted (scripts/webdoom-node-latency.sh)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *serveBare != "" {
		return serveBareRelay(*serveBare, *players, stdout)
	}
	if *players < 1 || *players > 4 || *tics < 1 || *rounds < 1 {
		return usageError{Err: errors.New("--players 1..4, --tics > 0 and --rounds > 0")}
	}
	cfg := benchwebdoom.Config{Players: *players, Tics: *tics, Rounds: *rounds, Log: stderr}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg.Profile = f
	}
	res, err := benchwebdoom.Run(context.Background(), cfg)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, res.Summary())
	keyValues(stdout, res.Pairs()...)
	return nil
}

// serveBareRelay serves bench webdoom's bare relay on addr until
// interrupted.
func serveBareRelay(addr string, players int, stdout io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stdout, "rewind-bench webdoom: bare relay for %d players on ws://%s/ws/game\n", players, ln.Addr())
	return (&benchwebdoom.Bare{Players: players}).Serve(ctx, ln)
}
