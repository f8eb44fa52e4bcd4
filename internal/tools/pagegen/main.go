// Command pagegen writes `rewind demo`'s prebuilt page
// (internal/cli/demopage/prebuilt: the page's three wasm programs,
// zstd-compressed, their JavaScript and a MANIFEST of the sources they
// were built from), building it from the clone it runs in, as the demo
// builds it; `go generate ./internal/cli/demopage` runs it. With -check
// it writes nothing: it proves that the prebuilt page is what the
// sources build (the same key, and a build now gives the same bytes),
// exit status 1 when it differs (or does not build), 3 when it is stale
// (of other sources, or built by another Go: the demo then builds the
// page instead of serving it, so that is not wrong). -check builds the
// page's three programs either way.
//
//	go run ./internal/tools/pagegen          # regenerate (about 4 MB)
//	go run ./internal/tools/pagegen -check   # prove it current
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/rewindnet/rewind/internal/cli/demopage"
)

func main() {
	check := flag.Bool("check", false, "write nothing: check that the prebuilt page is what these sources build")
	flag.Parse()
	run := demopage.Generate
	if *check {
		run = demopage.Check
	}
	if err := run(os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pagegen:", err)
		if errors.Is(err, demopage.ErrStale) || errors.Is(err, demopage.ErrOtherGo) {
			os.Exit(3)
		}
		os.Exit(1)
	}
}
