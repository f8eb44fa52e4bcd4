package fleet

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/rewindnet/rewind/internal/tools/bench"
)

// rawLoop is the raw socket loop (raw.Loop, raw.Serve) in a child
// process of its own, with its raw bots in others: paused (SIGSTOP)
// while the server's windows are measured, resumed for its own windows,
// so that each side's CPU is its own process's and both sample the
// machine's drift alike.
type rawLoop struct {
	loop *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	bots []*exec.Cmd
	log  io.Writer
}

// rawSample is the loop's counters at one instant.
type rawSample struct {
	in, out uint64
	cpu     time.Duration
	peers   int
}

// startRawLoop starts the loop, writing outSize-byte datagrams, and
// peers raw bots sending inSize-byte ones dealt over cfg.Procs processes,
// and waits until the loop heard every peer.
func startRawLoop(cfg Config, peers, inSize, outSize int) (_ *rawLoop, err error) {
	if len(cfg.Command) == 0 {
		return nil, bench.ErrNoCommand
	}
	args := append(append([]string{}, cfg.Command[1:]...), "bench", "fleet", "--raw-loop", strconv.Itoa(outSize))
	cmd := exec.Command(cfg.Command[0], args...)
	cmd.Stderr = cfg.Log
	bench.DieWithParent(cmd)
	l := &rawLoop{loop: cmd, log: cfg.Log}
	if l.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	l.out = bufio.NewReader(stdout)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			l.close()
		}
	}()
	line, err := l.out.ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "addr=")
	if err != nil || !ok {
		return nil, fmt.Errorf("raw loop: %q, %v", line, err)
	}
	procs := min(cfg.Procs, peers)
	for i := range procs {
		n := peers / procs
		if i < peers%procs {
			n++
		}
		bot, err := bench.StartSched(cfg.BotSched, cfg.Command, nil, cfg.Log, "bench", "fleet", "--bot-server", addr, "--bot-local", BotIP(i),
			"--bot-raw", strconv.Itoa(inSize), "--bot-count", strconv.Itoa(n))
		if err != nil {
			return nil, err
		}
		l.bots = append(l.bots, bot)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		s, err := l.sample()
		if err != nil {
			return nil, err
		}
		if s.peers >= peers {
			return l, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("raw bots: %d of %d arrived", s.peers, peers)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sample asks the loop for its counters.
func (l *rawLoop) sample() (rawSample, error) {
	if _, err := io.WriteString(l.in, "\n"); err != nil {
		return rawSample{}, err
	}
	line, err := l.out.ReadString('\n')
	if err != nil {
		return rawSample{}, fmt.Errorf("raw loop: %w", err)
	}
	var s rawSample
	var ns int64
	if _, err := fmt.Sscan(line, &s.in, &s.out, &ns, &s.peers); err != nil {
		return rawSample{}, fmt.Errorf("raw loop: %q: %w", line, err)
	}
	s.cpu = time.Duration(ns)
	return s, nil
}

// close ends the bots and the loop.
func (l *rawLoop) close() {
	l.resume() // a stopped process would take SIGTERM only once continued
	bench.Stop(l.bots...)
	l.in.Close()
	bench.Stop(l.loop)
}
