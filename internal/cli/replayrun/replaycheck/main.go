// Command replaycheck verifies a replay file (replayrun.VerifyFile) and
// prints replayrun.Line's last line: built for js/wasm and run under Node
// by replayrun's test, it shows that a replay recorded natively verifies
// in the browser's Go.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/rewindnet/rewind/internal/cli/replayrun"
	"github.com/rewindnet/rewind/replay"
)

func main() {
	until := flag.Uint("until-tick", 0, "stop after this tick (0: all)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: replaycheck [--until-tick T] FILE")
		os.Exit(2)
	}
	res, err := replayrun.VerifyFile(flag.Arg(0), replay.Options{UntilTick: uint32(*until)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "replaycheck:", err)
	}
	fmt.Println(replayrun.Line(res))
	if err != nil || !res.Verified || res.Truncated {
		os.Exit(1)
	}
}
