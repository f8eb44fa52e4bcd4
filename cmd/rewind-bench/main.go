// Command rewind-bench runs rewind's benchmarks, load rigs and attack
// suites, apart from the rewind server binary so that it links none of
// them:
//
//	rewind-bench <name> [flags]
//
// Each name and its flags are what `rewind-bench <name>` took before
// (docs/benchmarks.md has the commands and their figures). Results meant
// for scripts go to standard output, ending with one line of key=value
// pairs; logs go to standard error. Exit status 2 is a usage error, 1 a
// failure (a benchmark whose check failed still prints its line).
//
// bench relays starts `rewind relay` processes: it runs the rewind
// binary beside this one's executable, else the one on PATH.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rewindnet/rewind/internal/cli/cliflag"
)

// benches are the benchmarks by name; each file registers its own in init.
var benches = map[string]cliflag.Command{}

// registerBench adds a "rewind-bench <name>" command.
func registerBench(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	benches[name] = cliflag.Command{Summary: summary, Run: run}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a benchmark and turns its error into one line on
// stderr and exit status 2 (usage) or 1 (failure). A first argument
// "bench" is skipped, so that `rewind-bench bench NAME` is NAME too.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "bench" {
		args = args[1:]
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		cliflag.Usage(stderr, "rewind-bench <name> [flags]", benches)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := benches[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rewind-bench: unknown benchmark %q (rewind-bench -h lists them)\n", args[0])
		return 2
	}
	if err := c.Run(args[1:], stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "rewind-bench %s: %v\n", args[0], err)
		var u usageError
		if errors.As(err, &u) {
			return 2
		}
		return 1
	}
	return 0
}

// usageError marks an error caused by bad arguments (exit status 2).
type usageError = cliflag.UsageError

// newFlags and keyValues are the command tables' own (cliflag): a
// benchmark's FlagSet, and its results' last line; parseFlags parses
// one, refusing positional arguments.
var newFlags, keyValues, parseFlags = cliflag.NewFlags, cliflag.KeyValues, cliflag.Parse
