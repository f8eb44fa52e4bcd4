package soak

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rewindnet/rewind/internal/tools/bench"
	"github.com/rewindnet/rewind/internal/tools/cputime"
	"github.com/rewindnet/rewind/internal/tools/lossy"
)

// soakKids are bench soak's child processes: the lossy forwarder and the
// player processes. Each prints key=value lines on its standard output
// (the forwarder `forward=ADDR` once, then `fwd ...`; a player process
// `soak ...`), read by a goroutine per child that keeps the latest; each
// stops when its standard input closes. A child that exits before stop
// fails the soak.
type soakKids struct {
	stderr   io.Writer
	mu       sync.Mutex
	kids     []*soakKid
	latest   map[*soakKid]soakCounts
	fwd      fwdCounts
	stopping bool
	failure  error
	failed   chan struct{} // closed at the first failure
	once     sync.Once
}

// soakKid is one child process.
type soakKid struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // its output read to the end and the process waited for
}

// fwdCounts are the forwarder's counters.
type fwdCounts struct {
	up, down, droppedUp, droppedDown uint64
	flows                            int
	cpuMS                            uint64 // the process's CPU time so far
}

// lossFraction is the fraction of datagrams the forwarder dropped.
func (c fwdCounts) lossFraction() float64 {
	all := c.up + c.down + c.droppedUp + c.droppedDown
	if all == 0 {
		return 0
	}
	return float64(c.droppedUp+c.droppedDown) / float64(all)
}

// start starts cmd as a child named name; each line of its output goes
// to line (on the child's reader goroutine).
func (k *soakKids) start(name string, cmd *exec.Cmd, line func(string)) error {
	k.mu.Lock()
	if k.failed == nil {
		k.failed = make(chan struct{})
		k.latest = make(map[*soakKid]soakCounts)
	}
	k.mu.Unlock()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = k.stderr
	bench.DieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	kid := &soakKid{name: name, cmd: cmd, stdin: stdin, done: make(chan struct{})}
	k.mu.Lock()
	k.kids = append(k.kids, kid)
	k.mu.Unlock()
	go func() {
		defer close(kid.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line(sc.Text())
		}
		err := cmd.Wait()
		k.mu.Lock()
		defer k.mu.Unlock()
		if !k.stopping || err != nil {
			if err == nil {
				err = errors.New("exited")
			}
			k.fail(fmt.Errorf("%s: %w", name, err))
		}
	}()
	return nil
}

// fail records the first failure. k.mu is held.
func (k *soakKids) fail(err error) {
	k.once.Do(func() {
		k.failure = err
		close(k.failed)
	})
}

// err returns the first failure.
func (k *soakKids) err() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.failure
}

// startForwarder starts the forwarder process listening on listen and
// forwarding to the server at to, and returns the address it listens on.
func (k *soakKids) startForwarder(f Config, listen, to string) (string, error) {
	cmd, err := soakCommand(f.Command, "--soak-forward", listen, "--soak-to", to,
		"--loss", fmt.Sprint(f.Loss), "--delay", f.Delay.String(), "--jitter", f.Jitter.String(), "--seed", fmt.Sprint(f.Seed))
	if err != nil {
		return "", err
	}
	addr := make(chan string, 1)
	err = k.start("forwarder", cmd, func(l string) {
		if a, ok := strings.CutPrefix(l, "forward="); ok {
			addr <- a
			return
		}
		if rest, ok := strings.CutPrefix(l, "fwd "); ok {
			m := parseKV(rest)
			k.mu.Lock()
			k.fwd = fwdCounts{up: atou(m["up"]), down: atou(m["down"]), droppedUp: atou(m["dropped_up"]), droppedDown: atou(m["dropped_down"]), flows: int(atou(m["flows"])), cpuMS: atou(m["cpu_ms"])}
			k.mu.Unlock()
		}
	})
	if err != nil {
		return "", err
	}
	select {
	case a := <-addr:
		return a, nil
	case <-k.failed:
		return "", k.err()
	case <-time.After(30 * time.Second):
		return "", errors.New("did not say where it listens within 30 s")
	}
}

// startAll starts the forwarder to server (on the namespace's host end,
// or on 127.0.0.1 without ns) and the player processes of rooms (in ns),
// and returns the forwarder's address.
func (k *soakKids) startAll(f Config, ns *soakNetns, server string, rooms []string) (string, error) {
	listen := "127.0.0.1:0"
	if ns != nil {
		listen = ns.hostIP.String() + ":0"
	}
	fwdAddr, err := k.startForwarder(f, listen, server)
	if err != nil {
		return "", fmt.Errorf("the lossy forwarder: %w", err)
	}
	per := make([][]string, f.Procs)
	for i, room := range rooms {
		per[i%f.Procs] = append(per[i%f.Procs], room)
	}
	for i, rs := range per {
		args := []string{"--soak-server", fwdAddr, "--soak-rooms", strings.Join(rs, ","),
			"--players", fmt.Sprint(f.Players), "--soak-seed", fmt.Sprint(f.Seed*1000 + uint64(i)),
			"--stay", Durations(f.Stay), "--away", Durations(f.Away)}
		if f.Plant != "" && i == 0 {
			args = append(args, "--plant", f.Plant)
		}
		if err := k.startPlayers(f.Command, ns, args...); err != nil {
			return "", fmt.Errorf("player process %d: %w", i, err)
		}
	}
	return fwdAddr, nil
}

// startPlayers starts a player process with args (in ns, if not nil).
func (k *soakKids) startPlayers(command []string, ns *soakNetns, args ...string) error {
	cmd, err := soakCommand(command, args...)
	if err != nil {
		return err
	}
	if ns != nil {
		cmd = ns.wrap(cmd)
	}
	var kid *soakKid
	name := fmt.Sprintf("player process %d", len(k.kids))
	err = k.start(name, cmd, func(l string) {
		if rest, ok := strings.CutPrefix(l, "soak "); ok {
			m := parseKV(rest)
			k.mu.Lock()
			k.latest[kid] = soakCounts{
				players: int(atou(m["players"])), present: int(atou(m["present"])),
				verified: atou(m["verified"]), desyncs: atou(m["desyncs"]),
				rejoins: atou(m["rejoins"]), kept: atou(m["kept"]), lost: atou(m["lost"]),
				failed: atou(m["rejoin_failed"]), dropped: atou(m["dropped"]), leaves: atou(m["leaves"]),
				cpuMS: atou(m["cpu_ms"]),
			}
			k.mu.Unlock()
		}
	})
	if err == nil {
		k.mu.Lock()
		kid = k.kids[len(k.kids)-1]
		k.mu.Unlock()
	}
	return err
}

// tell writes a line to every player process.
func (k *soakKids) tell(line string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, kid := range k.kids[1:] {
		io.WriteString(kid.stdin, line+"\n")
	}
}

// counts returns the player processes' counters summed, and the
// forwarder's.
func (k *soakKids) counts() (soakCounts, fwdCounts) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var s soakCounts
	for _, c := range k.latest {
		s.players += c.players
		s.present += c.present
		s.verified += c.verified
		s.desyncs += c.desyncs
		s.rejoins += c.rejoins
		s.kept += c.kept
		s.lost += c.lost
		s.failed += c.failed
		s.dropped += c.dropped
		s.leaves += c.leaves
		s.cpuMS += c.cpuMS
	}
	return s, k.fwd
}

// stop ends the children, players first (their standard input closes;
// they print their last counters and exit; SIGKILL after 10 s), then
// the forwarder, and waits for them. It returns the first failure of a
// child, if any; calling it again does nothing more.
func (k *soakKids) stop() error {
	k.mu.Lock()
	if k.stopping {
		k.mu.Unlock()
		return nil
	}
	k.stopping = true
	kids := k.kids
	k.mu.Unlock()
	end := func(group []*soakKid) {
		for _, kid := range group {
			kid.stdin.Close()
		}
		for _, kid := range group {
			select {
			case <-kid.done:
			case <-time.After(10 * time.Second):
				kid.cmd.Process.Kill()
				<-kid.done
			}
		}
	}
	if len(kids) > 1 {
		end(kids[1:])
	}
	if len(kids) > 0 {
		end(kids[:1])
	}
	return k.err()
}

// parseKV reads a line of key=value fields.
func parseKV(line string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

// atou parses a counter (0 if it does not parse).
func atou(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

// RunForwarder is bench soak's forwarder process: a lossy.Forwarder
// from f.FwdListen to f.FwdTo, printing forward=ADDR, then its counters
// every second (a `fwd ...` line) until its standard input ends.
func RunForwarder(ctx context.Context, f Config, stdin io.Reader, stdout io.Writer) error {
	fw, err := lossy.Listen(f.FwdListen, f.FwdTo, lossy.Config{Loss: f.Loss, Delay: f.Delay, Jitter: f.Jitter, Seed: f.Seed})
	if err != nil {
		return err
	}
	defer fw.Close()
	fmt.Fprintf(stdout, "forward=%s\n", fw.Addr())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // ends with the process: a read of stdin cannot be interrupted
		io.Copy(io.Discard, stdin)
		cancel()
	}()
	line := func() {
		s := fw.Stats()
		fmt.Fprintf(stdout, "fwd up=%d down=%d dropped_up=%d dropped_down=%d flows=%d flows_opened=%d cpu_ms=%d\n",
			s.Up, s.Down, s.DroppedUp, s.DroppedDown, s.Flows, s.FlowsOpened, cputime.Process().Milliseconds())
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			line()
			return nil
		case <-t.C:
			line()
		}
	}
}

// soakCommand returns the command of a child process of bench soak (a
// player process, the forwarder): `Command bench soak ARGS`.
func soakCommand(command []string, args ...string) (*exec.Cmd, error) {
	if len(command) == 0 {
		return nil, bench.ErrNoCommand
	}
	return exec.Command(command[0], append(append(command[1:len(command):len(command)], "bench", "soak"), args...)...), nil
}
