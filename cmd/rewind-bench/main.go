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
	"sort"
	"strings"
)

// command is one benchmark: run gets the arguments after its name and
// the streams to write to, and returns an error to print as one line.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// benches are the benchmarks by name; each file registers its own in init.
var benches = map[string]command{}

// registerBench adds a "rewind-bench <name>" command.
func registerBench(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	benches[name] = command{summary, run}
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
		usage(stderr, "rewind-bench <name> [flags]", benches)
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
	if err := c.run(args[1:], stdout, stderr); err != nil {
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
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// newFlags returns a FlagSet for a benchmark that reports errors instead
// of exiting, with usage text written to stderr.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, turning a parse failure into a usageError; -h
// prints usage and returns flag.ErrHelp. Positional arguments are refused.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

// keyValues prints the final key=value line of a benchmark's results.
func keyValues(w io.Writer, pairs ...any) {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%v=%v", pairs[i], pairs[i+1])
	}
	fmt.Fprintln(w, b.String())
}

func usage(w io.Writer, synopsis string, cmds map[string]command) {
	fmt.Fprintf(w, "usage: %s\n\ncommands:\n", synopsis)
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
}
