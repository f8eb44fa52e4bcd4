package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/attack"
	"github.com/rewindnet/rewind/transport"
)

func init() {
	registerBench("flood", "matches of load bots played quiet, then under a flood of bogus datagrams from one address and hellos from many ports: tick jitter rise, allocations per bogus datagram, drops by reason", runBenchFlood)
}

// benchFloodKeys is what bench flood's help says of its output.
const benchFloodKeys = `The matches (bench fleet's: one MultiHost on 127.0.0.1, load bots in
child processes) are measured in three phases of --seconds each, --rounds
times: quiet; control (a child process floods a socket of its own: the
machine does the flood's work, the server none of it); flood (the same
child floods the server from ` + floodIP + `: --rate bogus datagrams a second
from one port, kinds random and wire, and --hello-rate hellos a second
from --hello-ports ports, kind hello). One line at the end: flood_rate,
hello_rate, hello_ports, kinds, matches, players, seconds, rounds,
bogus_sent and hellos_sent (by the flooder, in the flood phases),
flood_received (datagrams the server read beyond the quiet rate),
jitter_p99_quiet_ms, _control_ms and _flood_ms (99th percentile of how
late a match's tick started after it was due: the players' tick jitter),
jitter_rise_ms (flood over quiet) and jitter_rise_vs_control_ms (flood
over control: what the server's own handling of the flood adds),
jitter_p99_quiet_spread_ms (the largest minus the smallest of the rounds'
quiet p99s: the machine's noise) and conclusive (more than one round and
that spread under 1 ms: only then does a rise under 1 ms mean anything),
jitter_p50_quiet_ms, _control_ms and _flood_ms (the medians, which a
stall of the machine moves less),
late_inputs_per_1000_quiet and _flood, cpu_pct_quiet and _flood (the
server process, of one core), us_per_flood_datagram (the server CPU the
flood added, per datagram read), dropped_total and dropped_reasons
(udp_dropped_datagrams_total by reason over the flood phases), retries
(hellos answered statelessly), kernel_drops_quiet and _flood (datagrams
the kernel dropped for the server's socket, its receive buffer full:
players' among them; Linux), allocs_per_bogus (heap objects the server
process allocated in the flood phases beyond the quiet rate, per datagram
read beyond it), players_after, load1, and held: conclusive, jitter rise
under 1 ms, under 0.01 allocations per flood datagram, drops counted,
every player still there (held=false with conclusive=false says the
machine was too noisy to tell, not that the server failed: read the
other figures).`

// floodSink is the flooder's --flood-server for the control phase: a
// socket of its own that reads and drops what it gets, so that the
// machine does the flood's work but the server does not.
const floodSink = "sink"

// floodIP is the address bench flood's flooder sends from (the bots use
// 127.0.x.y with x >= 1).
const floodIP = "127.0.0.66"

// floodFlags are bench flood's flags.
type floodFlags struct {
	rate, helloRate, helloPorts      int
	matches, players, procs, workers int
	rounds, readBuffer               int
	seconds                          float64
	kinds                            string
	// The flooder process (internal): --flood-server ADDR, or "sink".
	floodServer string
}

func (f *floodFlags) add(fs *flag.FlagSet) {
	fs.IntVar(&f.rate, "rate", 10000, "bogus datagrams a second from one address (kinds random and wire)")
	fs.IntVar(&f.helloRate, "hello-rate", 1000, "hellos a second in the hello flood (kind hello)")
	fs.IntVar(&f.helloPorts, "hello-ports", 200, "source ports of the hello flood")
	fs.IntVar(&f.matches, "matches", 1, "matches playing")
	fs.IntVar(&f.players, "players", 4, "load bots per match")
	fs.IntVar(&f.procs, "bot-procs", 2, "child processes running the load bots")
	fs.IntVar(&f.workers, "workers", 0, "the server's worker goroutines (default one per core)")
	fs.Float64Var(&f.seconds, "seconds", 5, "measured window of each phase (quiet, control, flood) in each round, in seconds, after a 1 s warm-up")
	fs.IntVar(&f.rounds, "rounds", 3, "rounds of the three phases, their figures summed (on a busy machine the load drifts: more rounds share it out)")
	fs.StringVar(&f.kinds, "kinds", strings.Join(attack.FloodKinds, ","), "bogus kinds: random (random bytes), wire (well-formed frames for no session), hello (hellos from many ports, half with a forged token)")
	fs.IntVar(&f.readBuffer, "read-buffer", 0, "the server socket's receive buffer in bytes (UDPConfig.ReadBuffer; default the system's)")
	fs.StringVar(&f.floodServer, "flood-server", "", "internal: run as bench flood's flooder against this server")
}

// floodPhase is one phase's figures, summed over the rounds.
type floodPhase struct {
	wall, cpu     time.Duration
	lag           rewind.Lag
	playerTicks   uint64
	lateInputs    uint64
	dgIn, mallocs uint64
	drops         []uint64
	retries       uint64
	kernelDrops   uint64
	players       int // at the end of the last window
}

// add adds the window from a to b.
func (p *floodPhase) add(a, b fleetSample) {
	lag := b.lag.Sub(a.lag)
	for i, n := range lag.Counts {
		p.lag.Counts[i] += n
	}
	p.wall += b.at.Sub(a.at)
	p.cpu += b.cpu - a.cpu
	p.playerTicks += b.stats.Total.PlayerTicks - a.stats.Total.PlayerTicks
	p.lateInputs += b.stats.Total.LateInputs - a.stats.Total.LateInputs
	p.dgIn += b.stats.UDP.DatagramsIn - a.stats.UDP.DatagramsIn
	p.mallocs += b.mallocs - a.mallocs
	d := dropCounts(a.stats, b.stats)
	if p.drops == nil {
		p.drops = make([]uint64, len(d))
	}
	for i, n := range d {
		p.drops[i] += n
	}
	p.retries += b.stats.UDP.Retries - a.stats.UDP.Retries
	p.kernelDrops += b.kernelDrops - a.kernelDrops
	p.players = b.stats.Players
}

func (p *floodPhase) jitterP99() time.Duration { return p.lag.Quantile(0.99) }

// perSecond is n over the phase's wall time, a second.
func (p floodPhase) perSecond(n uint64) float64 { return float64(n) / p.wall.Seconds() }

func (p floodPhase) latePer1000() string {
	return fmt.Sprintf("%.1f", float64(p.lateInputs)*1000/float64(max(p.playerTicks, 1)))
}

func (p floodPhase) cpuPct() string { return fmt.Sprintf("%.1f", 100*p.cpu.Seconds()/p.wall.Seconds()) }

func runBenchFlood(args []string, stdout, stderr io.Writer) error {
	stderr = &syncWriter{w: stderr}
	fs := newFlags("bench flood", "rewind bench flood [--rate R] [--seconds S] [--matches M] [--players P] [--rounds N] [--kinds random,wire,hello] [flags]\n\n"+benchFloodKeys, stderr)
	var f floodFlags
	f.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	kinds := strings.Split(f.kinds, ",")
	for _, k := range kinds {
		if !slices.Contains(attack.FloodKinds, k) {
			return usageError{fmt.Errorf("--kinds %q: want some of %s", f.kinds, strings.Join(attack.FloodKinds, ","))}
		}
	}
	if f.floodServer != "" {
		return runFlooder(f, kinds, stdout)
	}
	switch {
	case f.rate < 0 || f.rate > 1_000_000:
		return usageError{fmt.Errorf("--rate %d: want 0..1000000", f.rate)}
	case f.helloRate < 0 || f.helloRate > 1_000_000:
		return usageError{fmt.Errorf("--hello-rate %d: want 0..1000000", f.helloRate)}
	case f.helloPorts < 1 || f.helloPorts > 2000:
		return usageError{fmt.Errorf("--hello-ports %d: want 1..2000", f.helloPorts)}
	case f.matches < 1 || f.matches > 500:
		return usageError{fmt.Errorf("--matches %d: want 1..500", f.matches)}
	case f.players < 1 || f.players > 64:
		return usageError{fmt.Errorf("--players %d: want 1..64", f.players)}
	case f.procs < 1 || f.procs > 200:
		return usageError{fmt.Errorf("--bot-procs %d: want 1..200", f.procs)}
	case f.seconds <= 0:
		return usageError{errors.New("--seconds must be positive")}
	case f.rounds < 1 || f.rounds > 100:
		return usageError{fmt.Errorf("--rounds %d: want 1..100", f.rounds)}
	}
	r, err := startFleetRig(f.matches, f.players, f.procs, f.workers, 0, transport.UDPConfig{ReadBuffer: f.readBuffer}, stderr)
	if err != nil {
		return err
	}
	defer r.close()
	window := time.Duration(f.seconds * float64(time.Second))
	var quiet, control, flood floodPhase
	var sent [2]uint64 // bogus, hellos: the flood phases'
	var quietP99s []time.Duration
	// measure runs one phase's window: with a flooder aimed at target
	// ("": none), started a second before the window.
	measure := func(p *floodPhase, target string) error {
		var out bytes.Buffer
		var flooder *exec.Cmd
		if target != "" {
			var err error
			flooder, err = startChild(&out, stderr, "flood", "--flood-server", target, "--kinds", f.kinds,
				"--rate", strconv.Itoa(f.rate), "--hello-rate", strconv.Itoa(f.helloRate), "--hello-ports", strconv.Itoa(f.helloPorts))
			if err != nil {
				return err
			}
		}
		time.Sleep(time.Second) // warm-up
		a := r.sample()
		time.Sleep(window)
		p.add(a, r.sample())
		if flooder != nil {
			stopBots([]*exec.Cmd{flooder})
			if target != floodSink {
				n := kvLine(lastNonEmpty(out.String()))
				b, _ := strconv.ParseUint(n["bogus_sent"], 10, 64)
				h, _ := strconv.ParseUint(n["hellos_sent"], 10, 64)
				sent[0], sent[1] = sent[0]+b, sent[1]+h
			}
		}
		return nil
	}
	for round := range f.rounds {
		for _, ph := range []struct {
			name   string
			p      *floodPhase
			target string
		}{{"quiet", &quiet, ""}, {"control", &control, floodSink}, {"flood", &flood, r.addr.String()}} {
			before := ph.p.lag
			if err := measure(ph.p, ph.target); err != nil {
				return err
			}
			w := ph.p.lag
			for i := range w.Counts {
				w.Counts[i] -= before.Counts[i]
			}
			p99 := w.Quantile(0.99)
			if ph.p == &quiet {
				quietP99s = append(quietP99s, p99)
			}
			fmt.Fprintf(stderr, "bench flood: round %d %s: jitter p99 %s ms, %d players\n", round+1, ph.name, ms(p99), ph.p.players)
		}
	}

	// What the flood brought: the datagrams read, and the heap objects
	// allocated, beyond the quiet window's rates over the same time.
	received := float64(flood.dgIn) - quiet.perSecond(quiet.dgIn)*flood.wall.Seconds()
	allocs := float64(flood.mallocs) - quiet.perSecond(quiet.mallocs)*flood.wall.Seconds()
	perBogus := allocs / max(received, 1)
	usPer := (flood.cpu.Seconds() - quiet.cpu.Seconds()*flood.wall.Seconds()/quiet.wall.Seconds()) * 1e6 / max(received, 1)
	var dropped uint64
	for _, n := range flood.drops {
		dropped += n
	}
	rise := flood.jitterP99() - quiet.jitterP99()
	// The noise: how far apart the quiet rounds' p99s are. A rise under
	// 1 ms says something only when they are closer than that.
	spread := slices.Max(quietP99s) - slices.Min(quietP99s)
	conclusive := f.rounds > 1 && spread < time.Millisecond
	held := conclusive && rise < time.Millisecond && perBogus < 0.01 && dropped > 0 && flood.players == r.want && flood.playerTicks > 0
	keyValues(stdout,
		"flood_rate", f.rate,
		"hello_rate", f.helloRate,
		"hello_ports", f.helloPorts,
		"kinds", f.kinds,
		"matches", f.matches,
		"players", r.want,
		"seconds", f.seconds,
		"rounds", f.rounds,
		"bogus_sent", sent[0],
		"hellos_sent", sent[1],
		"flood_received", int64(received),
		"jitter_p99_quiet_ms", ms(quiet.jitterP99()),
		"jitter_p99_control_ms", ms(control.jitterP99()),
		"jitter_p99_flood_ms", ms(flood.jitterP99()),
		"jitter_rise_ms", ms(rise),
		"jitter_rise_vs_control_ms", ms(flood.jitterP99()-control.jitterP99()),
		"jitter_p99_quiet_spread_ms", ms(spread),
		"jitter_p50_quiet_ms", ms(quiet.lag.Quantile(0.5)),
		"jitter_p50_control_ms", ms(control.lag.Quantile(0.5)),
		"jitter_p50_flood_ms", ms(flood.lag.Quantile(0.5)),
		"conclusive", conclusive,
		"late_inputs_per_1000_quiet", quiet.latePer1000(),
		"late_inputs_per_1000_flood", flood.latePer1000(),
		"cpu_pct_quiet", quiet.cpuPct(),
		"cpu_pct_flood", flood.cpuPct(),
		"us_per_flood_datagram", fmt.Sprintf("%.2f", usPer),
		"dropped_total", dropped,
		"dropped_reasons", formatDrops(flood.drops),
		"retries", flood.retries,
		"kernel_drops_quiet", quiet.kernelDrops,
		"kernel_drops_flood", flood.kernelDrops,
		"allocs_per_bogus", fmt.Sprintf("%.4f", perBogus),
		"players_after", flood.players,
		"load1", loadAvg(),
		"held", held,
	)
	return nil
}

// runFlooder is bench flood's flooder process: it floods f.floodServer
// from floodIP until interrupted, then prints what it sent.
func runFlooder(f floodFlags, kinds []string, stdout io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var server netip.AddrPort
	if f.floodServer == floodSink {
		sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			return err
		}
		defer sink.Close()
		go func() { // read and drop, as the server's reader would
			buf := make([]byte, 2048)
			for {
				if _, _, err := sink.ReadFromUDPAddrPort(buf); err != nil && errors.Is(err, net.ErrClosed) {
					return
				}
			}
		}()
		server = sink.LocalAddr().(*net.UDPAddr).AddrPort()
	} else {
		var err error
		if server, err = netip.ParseAddrPort(f.floodServer); err != nil {
			return usageError{fmt.Errorf("--flood-server %q: %w", f.floodServer, err)}
		}
	}
	n, err := attack.Flood(ctx, attack.FloodConfig{
		Server: server, Local: netip.MustParseAddr(floodIP), Kinds: kinds,
		Rate: f.rate, HelloRate: f.helloRate, HelloPorts: f.helloPorts,
	})
	if err != nil {
		return err
	}
	keyValues(stdout, "bogus_sent", n.Bogus, "hellos_sent", n.Hellos)
	return nil
}

// kvLine parses a line of key=value pairs.
func kvLine(line string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

// lastNonEmpty returns s's last line that is not blank.
func lastNonEmpty(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
