package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// errBenchMoved is what `rewind bench` says where no rewind-bench can be
// found to run: where the benchmarks went.
var errBenchMoved = errors.New("the benchmarks moved to their own command: rewind-bench NAME [flags] takes the flags rewind bench NAME took and prints the same key=value line (go run ./cmd/rewind-bench NAME, or go build ./cmd/rewind-bench; rewind-bench -h lists them)")

// exitStatus is a command's way to end with a given exit status and no
// line of its own (the child it ran has said what it had to).
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// runBench runs `rewind-bench ARGS…` so that `rewind bench NAME …` keeps
// working: the rewind-bench binary beside this one or on PATH, else, in
// a clone of the repository, `go run ./cmd/rewind-bench`. Its output and
// exit status are the command's. With none of them it says where the
// benchmarks went (exit status 2).
func runBench(args []string, stdout, stderr io.Writer) error {
	name, pre := benchCommand()
	if name == "" {
		return usageError{Err: errBenchMoved}
	}
	cmd := exec.Command(name, append(pre, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return exitStatus(ee.ExitCode())
	}
	return err
}

// benchCommand finds what runs rewind-bench: the program and the
// arguments before the benchmark's ("" when there is none).
func benchCommand() (string, []string) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "rewind-bench")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("rewind-bench"); err == nil {
		return p, nil
	}
	if fi, err := os.Stat(filepath.Join("cmd", "rewind-bench", "main.go")); err == nil && !fi.IsDir() {
		if g, err := exec.LookPath("go"); err == nil {
			return g, []string{"run", "./cmd/rewind-bench"}
		}
	}
	return "", nil
}
