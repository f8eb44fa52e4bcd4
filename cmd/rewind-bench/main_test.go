package main

import (
	"flag"
	"os"
	"testing"
)

// rewindDir holds the rewind binary the tests build (needRewind).
var rewindDir string

// TestMain runs the tests; run with a command's arguments instead (a
// benchmark's child process: childCommand runs os.Executable, this test
// binary), the binary acts as the rewind-bench command.
func TestMain(m *testing.M) {
	flag.Parse()
	if args := flag.Args(); len(args) > 0 {
		os.Exit(run(args, os.Stdout, os.Stderr))
	}
	var err error
	if rewindDir, err = os.MkdirTemp("", "rewind-bench-test"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(rewindDir)
	os.Exit(code)
}
