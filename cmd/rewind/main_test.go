package main

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the tests; run with a command's arguments instead (a
// benchmark's child process: childCommand runs os.Executable, this test
// binary), the binary acts as the rewind command.
func TestMain(m *testing.M) {
	flag.Parse()
	if args := flag.Args(); len(args) > 0 {
		os.Exit(run(args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
