package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binDir holds the programs the tests build once (rewind, the window).
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rewind-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// required says whether a missing tool fails the test instead of
// skipping it: in CI (CI=true), .ci/run installs every tool these tests
// need, so a missing one is a failure there.
func required() bool { return os.Getenv("CI") != "" }

// need returns the path of the first of names on PATH, or skips (fails in
// CI) naming what is missing and why it is needed.
func need(t testing.TB, why string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("%s: none of %v on PATH (.ci/run installs it)", why, names)
	if required() {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

var builds sync.Map // name → *buildOnce

type buildOnce struct {
	once sync.Once
	path string
	err  error
}

// build builds the package pkg (a path relative to dir, the module's
// directory) into binDir once per test binary and returns the program's
// path.
func build(t testing.TB, name, dir, pkg string) string {
	t.Helper()
	goBin := need(t, "building "+name, "go")
	v, _ := builds.LoadOrStore(name, &buildOnce{})
	b := v.(*buildOnce)
	b.once.Do(func() {
		b.path = filepath.Join(binDir, name)
		cmd := exec.Command(goBin, "build", "-o", b.path, pkg)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// rewindBin returns the rewind command, built from the engine module.
func rewindBin(t testing.TB) string {
	return build(t, "rewind", filepath.Join("..", ".."), "./cmd/rewind")
}

// demo is a running `rewind demo`.
type demo struct {
	code, relay, url string
	stderr           *lockedBuffer
}

// startDemo runs `rewind demo --http 127.0.0.1:0` (building the page's
// wasm on its first run into the user's cache, which later runs reuse)
// and waits for its room=, relay= and url= lines. It is interrupted at
// the test's end.
func startDemo(t testing.TB, args ...string) *demo {
	t.Helper()
	cmd := exec.Command(rewindBin(t), append([]string{"demo", "--http", "127.0.0.1:0", "--log-level", "warn"}, args...)...)
	d := &demo{stderr: &lockedBuffer{}}
	cmd.Stderr = d.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
	}()
	vals := map[string]string{}
	timeout := time.After(8 * time.Minute) // a cold first build of the wasm
	for vals["room"] == "" || vals["relay"] == "" || vals["url"] == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("rewind demo ended before room=, relay= and url=; stderr:\n%s", d.stderr)
			}
			if k, v, ok := strings.Cut(l, "="); ok {
				vals[k] = v
			}
		case <-timeout:
			t.Fatalf("rewind demo printed no room=, relay= and url= within 8 minutes; stderr:\n%s", d.stderr)
		}
	}
	go func() {
		for range lines {
		}
	}()
	d.code, d.relay, d.url = vals["room"], vals["relay"], vals["url"]
	t.Logf("demo's room up in %v: room=%s url=%s", time.Since(start).Round(time.Millisecond), d.code, d.url)
	// On a first run for these sources the page says "building" while
	// the demo builds its wasm.
	for {
		resp, err := http.Get(d.url)
		if err != nil {
			t.Fatalf("GET %s: %v", d.url, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), "building") {
			break
		}
		select {
		case <-timeout:
			t.Fatalf("the page at %s still says building after 8 minutes; stderr:\n%s", d.url, d.stderr)
		case <-time.After(time.Second):
		}
	}
	t.Logf("demo ready in %v", time.Since(start).Round(time.Millisecond))
	if s := d.stderr.String(); strings.Contains(s, "page built") {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "page built") {
				t.Log(l)
			}
		}
	}
	return d
}

// player is a program whose last stdout line is `rewind play`'s.
type player struct {
	cmd    *exec.Cmd
	done   chan struct{}
	out    strings.Builder
	stderr lockedBuffer
	err    error
}

// startPlayer runs bin with args until it exits or ctx ends.
func startPlayer(ctx context.Context, env []string, bin string, args ...string) *player {
	p := &player{done: make(chan struct{})}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &p.out, &p.stderr
	if p.err = cmd.Start(); p.err != nil {
		close(p.done)
		return p
	}
	p.cmd = cmd
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p
}

// interrupt sends the player SIGINT: `rewind play` then ends with its
// last line, the verified tick and hash it reached.
func (p *player) interrupt() {
	if p.cmd != nil {
		_ = p.cmd.Process.Signal(syscall.SIGINT)
	}
}

// result waits for the player and returns its last line's key=value
// fields.
func (p *player) result(t testing.TB, what string) map[string]string {
	t.Helper()
	<-p.done
	if p.err != nil {
		t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", what, p.err, p.out.String(), p.stderr.String())
	}
	return fields(p.lastLine())
}

// lastLine returns the last line the player printed.
func (p *player) lastLine() string {
	lines := strings.Split(strings.TrimSpace(p.out.String()), "\n")
	return lines[len(lines)-1]
}

// fields parses a line of space-separated key=value pairs.
func fields(line string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

// lockedBuffer is a strings.Builder safe for a writer and readers.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
