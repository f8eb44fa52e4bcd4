package bench

import (
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Start starts a child process of a benchmark: command (the argv that
// runs the rewind command: its executable, and what a test binary needs
// to act as one) followed by args, with its standard output to stdout
// (nil: none) and its errors to stderr. The child dies with this process
// where the system can say so (Linux).
func Start(command []string, stdout, stderr io.Writer, args ...string) (*exec.Cmd, error) {
	if len(command) == 0 {
		return nil, ErrNoCommand
	}
	cmd := exec.Command(command[0], append(append([]string{}, command[1:]...), args...)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	DieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// Stop ends child processes (SIGTERM, then SIGKILL after 3 s) and waits
// for them.
func Stop(cmds ...*exec.Cmd) {
	for _, c := range cmds {
		c.Process.Signal(syscall.SIGTERM)
	}
	for _, c := range cmds {
		t := time.AfterFunc(3*time.Second, func() { c.Process.Kill() })
		c.Wait()
		t.Stop()
	}
}

// SyncWriter serializes writes to W: a benchmark's log lines and its
// child processes' (each copied by a goroutine of os/exec) share stderr.
// It has no ReadFrom, so that os/exec copies into it a Write at a time
// (a bytes.Buffer's ReadFrom, left waiting on the child, would write over
// what was written meanwhile).
type SyncWriter struct {
	mu sync.Mutex
	W  io.Writer
}

// Write writes p to W, one Write at a time.
func (s *SyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.W.Write(p)
}

// ParseKV parses a line of key=value pairs (what a child prints last).
func ParseKV(line string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

// LastLine returns s's last line that is not blank.
func LastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
