// Command rewind is rewind's server binary: the demo, the match server,
// the relay, a headless player, replays. The benchmarks, load rigs and
// attack suites are the separate command rewind-bench (`rewind-bench
// NAME` takes the flags `rewind bench NAME` took), so that this binary
// links none of them.
//
//	rewind <command> [flags]
//
// Each command lives in its own file and registers itself in init with
// register.
// Results meant for scripts go to standard output, ending with one line of
// key=value pairs; logs go to standard error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rewindnet/rewind/internal/cli/cliflag"
	"github.com/rewindnet/rewind/relay/roomclient"
)

var commands = map[string]cliflag.Command{}

// register adds a top-level command; it is called from init functions.
func register(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	commands[name] = cliflag.Command{Summary: summary, Run: run}
}

// registerInterruptible adds a top-level command that runs until SIGINT
// or SIGTERM: run's ctx ends then.
func registerInterruptible(name, summary string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	register(name, summary, func(args []string, stdout, stderr io.Writer) error {
		ctx, stop := signalContext()
		defer stop()
		return run(ctx, args, stdout, stderr)
	})
}

// signalContext is a context that ends on SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func init() {
	register("bench", "runs rewind-bench NAME (the benchmarks' own command: beside this binary, on PATH, or go run ./cmd/rewind-bench in a clone), same flags, same key=value line", runBench)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a command and turns its error into one line on stderr
// and exit status 2 (usage) or 1 (failure).
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		cliflag.Usage(stderr, "rewind <command> [flags]", commands)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rewind: unknown command %q (rewind -h lists them)\n", args[0])
		return 2
	}
	if err := c.Run(args[1:], stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		var x exitStatus
		if errors.As(err, &x) {
			return int(x)
		}
		fmt.Fprintf(stderr, "rewind %s: %v\n", args[0], tidy(err))
		var u usageError
		var t troubleError
		if errors.As(err, &u) || errors.As(err, &t) {
			return 2
		}
		return 1
	}
	return 0
}

// tidy shortens an error whose cause a user can fix to the line that says
// how: a relay dial's (roomclient.DialError: no relay there, not its
// rooms path) instead of the layers of dialing around it.
func tidy(err error) error {
	var de *roomclient.DialError
	if errors.As(err, &de) {
		return de
	}
	return err
}

// usageError marks an error caused by bad arguments (exit status 2).
type usageError = cliflag.UsageError

// troubleError marks an error of a command whose exit status 1 has a
// meaning of its own (rewind diff: the inputs differ), so that trouble
// (a file that cannot be read) is told from it: exit status 2, as
// diff(1)'s.
type troubleError struct{ err error }

func (t troubleError) Error() string { return t.err.Error() }
func (t troubleError) Unwrap() error { return t.err }

// newFlags and keyValues are the command tables' own (cliflag): a
// command's FlagSet, and its results' last line.
var newFlags, keyValues = cliflag.NewFlags, cliflag.KeyValues

// parseFlags parses args, turning a parse failure into a usageError; -h
// prints usage and returns flag.ErrHelp. Positional arguments are refused.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := cliflag.Parse(fs, args); err != nil {
		return err
	}
	return flagsParsed()
}

// onlyParse, set by a test (TestDocsCommands), stops every command as
// soon as its flags have parsed, with errOnlyParsed: a command line the
// docs show is checked against the command's real flag set without
// running it. Tests that set it do not run in parallel.
var onlyParse bool

// errOnlyParsed is what a command returns under onlyParse once its
// flags parsed.
var errOnlyParsed = errors.New("flags parsed (onlyParse)")

// flagsParsed is called once a command's flags parsed: nil, or
// errOnlyParsed under onlyParse.
func flagsParsed() error {
	if onlyParse {
		return errOnlyParsed
	}
	return nil
}
