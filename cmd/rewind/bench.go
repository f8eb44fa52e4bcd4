package main

import (
	"context"
	"io"
	"time"

	benchworld "github.com/rewindnet/rewind/internal/bench/world"
)

// The benchmarks run in-process: each is a package of internal/bench
// whose Run this file's commands call with the flags' Config, printing
// the Result's key=value line.

func init() {
	registerBench("world", "snapshot, hash and paged-delta benchmarks of package world", runBenchWorld)
}

// runBenchWorld measures package world against memcpy, xxh3 and zstd; see
// docs/benchmarks.md (World) for what each figure means.
func runBenchWorld(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench world", "rewind bench world [flags]", stderr)
	minTime := fs.Duration("time", 300*time.Millisecond, "minimum time per timed comparison")
	seconds := fs.Int("seconds", 30, "seconds of sand play (60 ticks each) before the whole-world encoding")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	res, err := benchworld.Run(context.Background(), benchworld.Config{MinTime: *minTime, Seconds: *seconds, Log: stderr})
	if err != nil {
		return err
	}
	keyValues(stdout, res.Pairs()...)
	return nil
}
