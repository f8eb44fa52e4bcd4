package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/internal/cli/replayrun"
	"github.com/rewindnet/rewind/module"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/world"
)

func init() {
	register("diff", "diff two world dumps (from play --debug-desync) or two replays: one line per difference, exit status 1 when any, 0 when none, 2 when a file cannot be read or nothing could be compared", runDiff)
}

// maxDesyncDumps is how many desyncs' worlds play --debug-desync writes
// (every desync is logged).
const maxDesyncDumps = 5

// desyncFlags are play's desync debugger flags.
type desyncFlags struct {
	on  bool
	dir string
}

// add declares --debug-desync and --desync-dir on fs.
func (d *desyncFlags) add(fs *flag.FlagSet) {
	fs.BoolVar(&d.on, "debug-desync", false, "on a desync ask the server for its whole world of that tick, log the first 20 differences (desync tick=T table=… row=… field=… ours=… server=…) and write both worlds to --desync-dir (first 5 desyncs) for rewind diff")
	fs.StringVar(&d.dir, "desync-dir", ".", "the directory --debug-desync writes its world dumps to")
}

// debugger returns the client's DebugDesync hook, or nil when off.
func (d *desyncFlags) debugger(log *slog.Logger) func(tick uint32, ours, server *world.World) {
	if !d.on {
		return nil
	}
	dd := &desyncDumper{dir: d.dir, log: log}
	return dd.onWorlds
}

// desyncDumper logs the differences of each desynced tick and writes the
// first worlds to files.
type desyncDumper struct {
	dir   string
	log   *slog.Logger
	dumps int
}

// onWorlds is the client's DebugDesync hook.
func (d *desyncDumper) onWorlds(tick uint32, ours, server *world.World) {
	ds, n, err := world.Diff(ours, server, client.MaxDifferences)
	if err != nil {
		d.log.Error("desync: cannot diff", "tick", tick, "err", err)
		return
	}
	for _, df := range ds {
		d.log.Warn("desync", diffAttrs(tick, df)...)
	}
	if n > len(ds) {
		d.log.Warn("desync: more differences not logged", "tick", tick, "differences", n)
	}
	if d.dumps >= maxDesyncDumps {
		return
	}
	d.dumps++
	for _, f := range []struct {
		name string
		w    *world.World
	}{{"ours", ours}, {"server", server}} {
		path := filepath.Join(d.dir, fmt.Sprintf("desync-%d-%s.world", tick, f.name))
		if err := os.WriteFile(path, f.w.AppendDump(nil, tick), 0o644); err != nil {
			d.log.Error("desync: cannot write the world dump", "path", path, "err", err)
			continue
		}
		d.log.Info("desync: world dumped", "tick", tick, "world", f.name, "path", path)
	}
}

// diffAttrs returns a difference as log attributes: tick, table, row (or
// cell), field, ours, server.
func diffAttrs(tick uint32, d world.Difference) []any {
	a := []any{"tick", tick, "table", d.Table}
	switch {
	case d.Kind == "grid":
		a = append(a, "cell", strconv.Itoa(d.X)+","+strconv.Itoa(d.Y))
	case d.Row < 0:
		a = append(a, "row", "-")
	default:
		a = append(a, "row", d.Row)
	}
	a = append(a, "field", d.Field, "ours", d.A, "server", d.B)
	if w := moduleWhere(d); w != "" {
		a = append(a, "where", w)
	}
	return a
}

// moduleWhere names where a difference of a WebAssembly module's world
// lies ("address 2056 (0x808)", "global 1": module.Describe), or "" for
// another game's.
func moduleWhere(d world.Difference) string {
	if (d.Table == "memory" && d.Kind == "table") || (d.Table == "globals" && d.Kind == "grid") {
		return module.Describe(d)
	}
	return ""
}

// errDiffer is runDiff's error when the inputs differ (exit status 1).
var errDiffer = errors.New("they differ")

// errNothingCompared is diffReplays' error for two replays without a
// tick in common (exit status 2): nothing was compared, so nothing is
// said equal.
var errNothingCompared = errors.New("the replays have no tick in common: nothing compared")

func runDiff(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("diff", "rewind diff A B   (two world dumps, or two replays)", stderr)
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 2 {
		return usageError{Err: errors.New("want two files: rewind diff A B")}
	}
	a, err := os.ReadFile(files[0])
	if err != nil {
		return troubleError{err}
	}
	b, err := os.ReadFile(files[1])
	if err != nil {
		return troubleError{err}
	}
	err = diffFiles(a, b, files[0], files[1], stdout, stderr)
	if err != nil && !errors.Is(err, errDiffer) {
		return troubleError{err} // exit status 2: 1 says they differ
	}
	return err
}

// parseWithFiles parses args whose flags may come before, between and
// after file names, and returns the file names.
func parseWithFiles(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{Err: err}
		}
		if fs.NArg() == 0 {
			return files, flagsParsed()
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// diffFiles diffs two world dumps, or two replays (diffReplays), printing
// "tick=T table=… row=… field=… ours=… server=…" per difference (A is
// "ours", B "server").
func diffFiles(a, b []byte, na, nb string, stdout, stderr io.Writer) error {
	if isReplay(a) || isReplay(b) {
		return diffReplays(a, b, na, nb, stdout, stderr)
	}
	da, err := world.ParseDump(a)
	if err != nil {
		return fmt.Errorf("%s: %w", na, err)
	}
	db, err := world.ParseDump(b)
	if err != nil {
		return fmt.Errorf("%s: %w", nb, err)
	}
	ds, n, err := world.DiffDumps(da, db, 0)
	if err != nil {
		return err
	}
	printDiffs(stdout, da.Tick, ds)
	if da.Tick != db.Tick {
		fmt.Fprintf(stderr, "rewind diff: note: the worlds are of ticks %d and %d\n", da.Tick, db.Tick)
	}
	if n > 0 {
		return fmt.Errorf("%d differences: %w", n, errDiffer)
	}
	return nil
}

// printDiffs prints one line per difference.
func printDiffs(w io.Writer, tick uint32, ds []world.Difference) {
	for _, d := range ds {
		if where := moduleWhere(d); where != "" {
			fmt.Fprintf(w, "tick=%d %s where=%q\n", tick, d, where)
			continue
		}
		fmt.Fprintf(w, "tick=%d %s\n", tick, d)
	}
}

// isReplay reports whether b starts like a replay file.
func isReplay(b []byte) bool { return bytes.HasPrefix(b, []byte("RWREPLAY")) }

// diffReplays simulates both replays again, finds the first tick both
// reach whose worlds hash differently, and diffs the two worlds of that
// tick.
func diffReplays(a, b []byte, na, nb string, stdout, stderr io.Writer) error {
	hashes := func(r []byte, name string) (map[uint32]uint64, error) {
		m := map[uint32]uint64{}
		res, err := replayrun.Verify(r, replay.Options{OnTick: func(t uint32, w *world.World) error {
			m[t] = w.Hash()
			return nil
		}})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if !res.Verified {
			fmt.Fprintf(stderr, "rewind diff: note: %s does not verify from tick %d (%s): compared up to there\n", name, res.FirstBad, res.Reason)
		}
		return m, nil
	}
	ha, err := hashes(a, na)
	if err != nil {
		return err
	}
	hb, err := hashes(b, nb)
	if err != nil {
		return err
	}
	first, common := uint32(0), 0
	for t, h := range ha {
		if g, ok := hb[t]; ok {
			common++
			if g != h && (first == 0 || t < first) {
				first = t
			}
		}
	}
	fmt.Fprintf(stderr, "rewind diff: %d ticks in both replays\n", common)
	if common == 0 {
		return errNothingCompared
	}
	if first == 0 {
		return nil
	}
	worldAt := func(r []byte) (*world.Dump, error) {
		var dump []byte
		_, err := replayrun.Verify(r, replay.Options{UntilTick: first, OnTick: func(t uint32, w *world.World) error {
			if t == first {
				dump = w.AppendDump(nil, t)
			}
			return nil
		}})
		if err != nil {
			return nil, err
		}
		return world.ParseDump(dump)
	}
	da, err := worldAt(a)
	if err != nil {
		return err
	}
	db, err := worldAt(b)
	if err != nil {
		return err
	}
	ds, n, err := world.DiffDumps(da, db, 0)
	if err != nil {
		return err
	}
	printDiffs(stdout, first, ds)
	return fmt.Errorf("tick %d: %d differences: %w", first, n, errDiffer)
}
