package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/rewindnet/rewind/internal/attack"
)

func init() {
	registerBench("abuse", "run the attack suite of issue 15 against real sockets on 127.0.0.1: one attack=NAME held=true|false line each", runBenchAbuse)
}

// benchAbuseKeys is what bench abuse's help says of its output.
const benchAbuseKeys = `Each attack prints one line of key=value pairs on standard output,
attack=NAME held=true|false and its figures; held=true means the legitimate
players were not kept out or disturbed and what the attacker held stayed
bounded. Attacks: ` + "unproven_sessions, room_squatters, code_guessing, demo_traces, demo_traces_quota, idle_http, refusal_logs, big_frame, sniffed_cookie, forged_from_address" + `.
The full run takes about five minutes (idle_http waits out the 60 s idle
timeout, demo_traces_quota parses 600 traces of 200,000 entries); --short
runs the versions the tests run, in seconds.`

func runBenchAbuse(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench abuse", "rewind bench abuse [--short] [--attack NAME,...]\n\n"+benchAbuseKeys, stderr)
	short := fs.Bool("short", false, "run the short versions (seconds each)")
	only := fs.String("attack", "", "run only these attacks (comma-separated names)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
		for _, n := range names {
			if !slices.ContainsFunc(attack.All, func(a attack.Attack) bool { return a.Name == n }) {
				return usageError{fmt.Errorf("--attack %q: no such attack", n)}
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, a := range attack.All {
		if names != nil && !slices.Contains(names, a.Name) {
			continue
		}
		fmt.Fprintf(stderr, "bench abuse: %s\n", a.Name)
		r := a.Run(ctx, attack.Config{Short: *short})
		fmt.Fprintln(stdout, r.Line())
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}
