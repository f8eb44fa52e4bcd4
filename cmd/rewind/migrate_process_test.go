package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// The host-migration test with real processes, as the outside
// check runs them: `rewind relay`, `rewind serve --relay URL
// --host-migration --players 3`, three `rewind play --headless --join CODE
// --until-tick T` and a `rewind watch --headless --join CODE --until-tick
// T`; serve is killed (SIGKILL) or stopped (SIGSTOP: a hung host) at
// about tick 600. Every player reaches T and prints the same verified hash
// with the id it had, migrations=1; exactly one ends as the host, and it
// serves on until the others have gone. The spectator follows the match
// to its new host (it joins the room again by its code) and prints the
// players' hash at T, migrations=1, no player id, hosting=false. The processes are
// this test binary re-run as the rewind command (TestRewindProcess).
// Waits are bounded by a context (a hang guard, not a speed assertion).

// TestRewindProcess runs the rewind command with the arguments in
// REWIND_PROCESS (separated by newlines) when set; alone it does nothing.
func TestRewindProcess(t *testing.T) {
	args := os.Getenv("REWIND_PROCESS")
	if args == "" {
		return
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// proc is a rewind command running as a process: its stdout lines, and
// the last verified= and hosting= values of its stderr status lines.
type proc struct {
	cmd      *exec.Cmd
	mu       sync.Mutex
	lines    []string
	stderr   []string
	verified int
	hosting  bool
	done     chan error
}

func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRewindProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "REWIND_PROCESS="+strings.Join(args, "\n"))
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan error, 1)}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
		}
	}()
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if i := strings.Index(line, " verified="); i >= 0 {
				f := strings.Fields(line[i+1:])[0]
				if v, err := strconv.Atoi(strings.TrimPrefix(f, "verified=")); err == nil {
					p.mu.Lock()
					p.verified = v
					p.mu.Unlock()
				}
			}
			p.mu.Lock()
			if i := strings.Index(line, " hosting="); i >= 0 {
				p.hosting = strings.HasPrefix(line[i:], " hosting=true")
			}
			p.stderr = append(p.stderr, line)
			p.mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	go func() {
		wg.Wait()
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		<-p.done
		if t.Failed() || testing.Verbose() {
			p.mu.Lock()
			t.Logf("%s's standard error:\n%s", args[0], strings.Join(p.stderr, "\n"))
			p.mu.Unlock()
		}
	})
	return p
}

// line waits for a stdout line starting with prefix and returns it.
func (p *proc) line(ctx context.Context, t *testing.T, prefix string) string {
	t.Helper()
	for {
		p.mu.Lock()
		for _, l := range p.lines {
			if strings.HasPrefix(l, prefix) {
				p.mu.Unlock()
				return l
			}
		}
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			t.Fatalf("no %q line: %v", prefix, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// wait waits for p's end, failing if it failed or has not ended when
// ctx does; name says which process in the message. The end goes back
// on p.done, for the cleanup (which waits for it: taking it for good
// hung a failing test until go test's timeout).
func (p *proc) wait(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		if err != nil {
			t.Fatalf("%s: %v (last line %q)", name, err, p.lastLine())
		}
	case <-ctx.Done():
		t.Fatalf("%s did not finish (last line %q): %v", name, p.lastLine(), ctx.Err())
	}
}

func (p *proc) lastLine() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.lines) == 0 {
		return ""
	}
	return p.lines[len(p.lines)-1]
}

func (p *proc) verifiedTick() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.verified
}

// keys parses a key=value line.
func keys(line string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

func TestHostMigrationProcesses(t *testing.T) {
	testutil.SkipSockets(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGSTOP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel() // processes only, no leak check: halves the test's 46 s
			migrateProcesses(t, sig, false)
		})
	}
	t.Run("StoppedPlayHost", func(t *testing.T) {
		t.Parallel()
		migrateProcesses(t, syscall.SIGKILL, true)
	})
}

// migrateProcesses: with stopHost, the player that took the match over
// is then stopped (SIGSTOP) 6 s at least, past the relay's 3 s ping and
// the players' 5 s timeout, and until another player hosts, then
// continued: the others take the match over
// again, and it, awake, finds its room another player's (rooms'
// watchResumed), stops hosting and joins the match as a new player; all
// reach the until tick with one hash, migrations=2, one of the others
// hosting.
func migrateProcesses(t *testing.T, sig syscall.Signal, stopHost bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	relayProc := startProc(t, "relay", "--http", "127.0.0.1:0", "--turn", "none", "--log-level", "debug")
	url := keys(relayProc.line(ctx, t, "relay=listening"))["url"]
	serve := startProc(t, "serve", "--game", "sand", "--relay", url, "--host-migration", "--players", "3", "--status", "0",
		"--log-level", "debug")
	code := strings.TrimPrefix(serve.line(ctx, t, "room="), "room=")
	until := "1000"
	if stopHost {
		until = "2000"
	}
	var players []*proc
	for range 3 {
		players = append(players, startProc(t, "play", "--headless", "--join", code, "--relay", url,
			"--until-tick", until, "--status", "100ms", "--log-level", "debug"))
	}
	ids := make([]string, 3)
	for i, p := range players {
		ids[i] = strings.TrimPrefix(p.line(ctx, t, "player="), "player=")
	}
	watcher := startProc(t, "watch", "--headless", "--join", code, "--relay", url,
		"--until-tick", until, "--status", "100ms", "--log-level", "debug")
	for {
		if players[0].verifiedTick() >= 600 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("tick 600 not reached: %v", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := serve.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	moves, stopped := "1", -1
	if stopHost {
		moves, stopped = "2", stopNewHost(ctx, t, players)
	}
	for i, p := range players {
		p.wait(ctx, t, "player "+strconv.Itoa(i))
	}
	var hash string
	hosts := 0
	for i, p := range players {
		last := keys(p.lastLine())
		t.Logf("player %d: %s", i, p.lastLine())
		if last["verified_tick"] != until || (last["player"] != ids[i]) != (i == stopped) || last["migrations"] != moves ||
			i == stopped && last["hosting"] != "false" {
			t.Fatalf("player %d (id %s; the stopped host: %v) ended with %q", i, ids[i], i == stopped, p.lastLine())
		}
		if hash == "" {
			hash = last["verified_hash"]
		} else if last["verified_hash"] != hash {
			t.Fatalf("player %d: verified_hash %s, player 0 %s", i, last["verified_hash"], hash)
		}
		if last["hosting"] == "true" {
			hosts++
		}
	}
	if hosts != 1 {
		t.Fatalf("%d players end as the host", hosts)
	}
	watcher.wait(ctx, t, "the spectator")
	t.Logf("spectator: %s", watcher.lastLine())
	last := keys(watcher.lastLine())
	if last["verified_tick"] != until || last["verified_hash"] != hash || last["migrations"] != moves || last["hosting"] != "false" ||
		slices.Contains(ids, last["player"]) {
		t.Fatalf("the spectator ended with %q, the players' hash %s", watcher.lastLine(), hash)
	}
}

// stopNewHost waits for the player that took the match over to verify
// tick 900, stops it 6 s at least and until another player hosts the
// match, continues it, and returns its index.
func stopNewHost(ctx context.Context, t *testing.T, players []*proc) int {
	t.Helper()
	hosting := func(i int) (bool, int) {
		p := players[i]
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.hosting, p.verified
	}
	tick := func(what string) {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	for {
		for i, p := range players {
			if host, v := hosting(i); !host || v < 900 {
				continue
			}
			if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			stopped := time.Now()
			for other := false; !other || time.Since(stopped) < 6*time.Second; tick("another player hosting while one is stopped") {
				for j := range players {
					h, _ := hosting(j)
					other = other || j != i && h
				}
			}
			t.Logf("player %d stopped %v", i, time.Since(stopped).Round(time.Millisecond))
			if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			return i
		}
		tick("no player hosts the match at tick 900")
	}
}
