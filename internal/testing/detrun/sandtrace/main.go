// Command sandtrace runs detrun's script of the sand game and prints every
// tick's world hash, one "tick hash" line each (hash in 16 hex digits),
// then a last line "ns_per_tick=N" with the run's wall time per tick. The
// detrun test builds it for js/wasm and runs it under Node to compare the
// hashes with a native run; docs/benchmarks.md uses its last line to
// compare the cost of a tick.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/rewindnet/rewind/internal/testing/detrun"
)

func main() {
	ticks := flag.Uint("ticks", 10000, "ticks to run")
	side := flag.Int("side", 256, "the sand grid's side")
	quiet := flag.Bool("quiet", false, "print only the last line (for timing)")
	flag.Parse()
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	start := time.Now()
	err := detrun.Run(*side, uint32(*ticks), func(t uint32, h uint64) {
		if !*quiet {
			fmt.Fprintf(out, "%d %016x\n", t, h)
		}
	})
	elapsed := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandtrace:", err)
		os.Exit(1)
	}
	fmt.Fprintf(out, "ns_per_tick=%d\n", elapsed.Nanoseconds()/int64(max(*ticks, 1)))
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "sandtrace:", err)
		os.Exit(1)
	}
}
