package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Command is one subcommand of a command table (rewind's, rewind-bench's):
// run gets the arguments after its name and the streams to write to.
type Command struct {
	// Summary is its line in the table's usage.
	Summary string
	// Run runs it; its error is printed as one line.
	Run func(args []string, stdout, stderr io.Writer) error
}

// Usage prints synopsis and the table's commands, one line each, by
// name.
func Usage(w io.Writer, synopsis string, cmds map[string]Command) {
	fmt.Fprintf(w, "usage: %s\n\ncommands:\n", synopsis)
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].Summary)
	}
}

// NewFlags returns a command's FlagSet: it reports errors instead of
// exiting, and -h writes synopsis and the flags to stderr.
func NewFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// KeyValues prints the final key=value line of a command's results:
// pairs is key, value, key, value….
func KeyValues(w io.Writer, pairs ...any) {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%v=%v", pairs[i], pairs[i+1])
	}
	fmt.Fprintln(w, b.String())
}

// UsageError marks an error caused by bad arguments: the command exits
// with status 2 on it.
type UsageError struct{ Err error }

func (u UsageError) Error() string { return u.Err.Error() }
func (u UsageError) Unwrap() error { return u.Err }

// Parse parses args, turning a parse failure into a UsageError; -h
// prints usage and returns flag.ErrHelp. Positional arguments are
// refused.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return UsageError{err}
	}
	if fs.NArg() > 0 {
		return UsageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}
