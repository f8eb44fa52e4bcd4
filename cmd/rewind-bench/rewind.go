package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
)

// rewindEnv names the rewind binary for the benchmarks that run it
// (bench relays' relays, bench abuse's serve_json_metrics), before the
// one beside this executable and the one on PATH.
const rewindEnv = "REWIND_BIN"

// rewindCommand is the command that runs the rewind binary: $REWIND_BIN,
// else rewind beside this executable, else rewind on PATH.
func rewindCommand() ([]string, error) {
	if p := os.Getenv(rewindEnv); p != "" {
		return []string{p}, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "rewind")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return []string{p}, nil
		}
	}
	p, err := exec.LookPath("rewind")
	if err != nil {
		return nil, fmt.Errorf("no rewind binary beside rewind-bench nor on PATH (go build -o DIR ./cmd/rewind ./cmd/rewind-bench, or set %s): %w", rewindEnv, err)
	}
	return []string{p}, nil
}

// serveProcess is `rewind serve ARGS` as a child process, for the attacks
// that run serve (attack.ServeFunc): its stdout and stderr go to stdout
// and stderr; when ctx ends it is sent SIGINT and its exit is awaited (a
// clean stop is no error).
func serveProcess(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	command, err := rewindCommand()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, command[0], append(append(command[1:], "serve"), args...)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	err = cmd.Run()
	if ctx.Err() != nil && (err == nil || errors.Is(err, ctx.Err())) {
		return nil // stopped by SIGINT, and exited 0 (exec's Wait says ctx's error then)
	}
	return err
}

// signalContext is a context that ends on SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
