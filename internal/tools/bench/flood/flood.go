// Package flood is `rewind-bench flood`: bench fleet's matches (a
// host.Multi on 127.0.0.1, load bots in child processes) measured in three
// phases, round after round: quiet; control (a child process floods a
// socket of its own: the machine does the flood's work, the server none
// of it); flood (the same child floods the server from IP: bogus
// datagrams from one port, kinds random and wire, and hellos from many
// ports, kind hello). What the flood costs the players (tick jitter, late
// inputs) and the server (CPU, allocations per datagram), and the drops
// by reason.
package flood

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/internal/tools/bench"
	"github.com/rewindnet/rewind/internal/tools/bench/fleet"
	"github.com/rewindnet/rewind/transport/udp"
)

// Sink is the flooder's --flood-server for the control phase: a socket
// of its own that reads and drops what it gets, so that the machine does
// the flood's work but the server does not.
const Sink = "sink"

// IP is the address the flooder sends from (the bots use 127.0.x.y with
// x >= 1).
const IP = "127.0.0.66"

// Config is what bench flood measures.
type Config struct {
	// Rate is bogus datagrams a second from one address; HelloRate
	// hellos a second from HelloPorts ports.
	Rate, HelloRate, HelloPorts int
	// Kinds are the bogus kinds (attack.FloodKinds).
	Kinds []string
	// Matches, Players, Procs and Workers are the rig's (fleet.RigConfig).
	Matches, Players, Procs, Workers int
	// Rounds is the rounds of the three phases, Seconds each phase's
	// measured window (after a 1 s warm-up).
	Rounds  int
	Seconds float64
	// UDP is the server's UDP config: its socket's receive buffer
	// (ReadBuffer, 0: the system's) and handshake limits.
	UDP udp.Config
	// Drops returns the datagrams dropped by reason between two samples
	// of the host's stats, Format writes them as the line's
	// dropped_reasons (the reasons are the metrics' labels, which the
	// command owns).
	Drops  func(before, after host.Stats) []uint64
	Format func([]uint64) string
	// Command runs the rewind command (its executable first): the bots
	// are `Command bench fleet --bot-server ...`, the flooder `Command
	// bench flood --flood-server ...`.
	Command []string
	// Log gets the progress lines and the children's errors (nil: none).
	Log io.Writer
}

// Phase is one phase's figures, summed over the rounds.
type Phase struct {
	// Wall and CPU are the windows' time and this process's CPU in them.
	Wall, CPU time.Duration
	// Lag is the ticks' lateness.
	Lag host.Lag
	// PlayerTicks, LateInputs, DgIn and Mallocs are counts over the windows.
	PlayerTicks, LateInputs, DgIn, Mallocs uint64
	// Drops are the datagrams dropped, by reason (Config.Drops).
	Drops []uint64
	// Retries counts hellos answered statelessly; KernelDrops the
	// datagrams the kernel dropped for the server's socket.
	Retries, KernelDrops uint64
	// Players is the players at the end of the last window.
	Players int
}

// add adds the window from a to b.
func (p *Phase) add(a, b fleet.Sample, drops func(before, after host.Stats) []uint64) {
	lag := b.Lag.Sub(a.Lag)
	for i, n := range lag.Counts {
		p.Lag.Counts[i] += n
	}
	p.Wall += b.At.Sub(a.At)
	p.CPU += b.CPU - a.CPU
	p.PlayerTicks += b.Stats.Total.PlayerTicks - a.Stats.Total.PlayerTicks
	p.LateInputs += b.Stats.Total.LateInputs - a.Stats.Total.LateInputs
	p.DgIn += b.Stats.UDP.DatagramsIn - a.Stats.UDP.DatagramsIn
	p.Mallocs += b.Mallocs - a.Mallocs
	d := drops(a.Stats, b.Stats)
	if p.Drops == nil {
		p.Drops = make([]uint64, len(d))
	}
	for i, n := range d {
		p.Drops[i] += n
	}
	p.Retries += b.Stats.UDP.Retries - a.Stats.UDP.Retries
	p.KernelDrops += b.KernelDrops - a.KernelDrops
	p.Players = b.Stats.Players
}

// JitterP99 is the 99th percentile of the ticks' lateness.
func (p *Phase) JitterP99() time.Duration { return p.Lag.Quantile(0.99) }

// perSecond is n over the phase's wall time, a second.
func (p Phase) perSecond(n uint64) float64 { return float64(n) / p.Wall.Seconds() }

func (p Phase) latePer1000() string {
	return fmt.Sprintf("%.1f", float64(p.LateInputs)*1000/float64(max(p.PlayerTicks, 1)))
}

func (p Phase) cpuPct() string { return fmt.Sprintf("%.1f", 100*p.CPU.Seconds()/p.Wall.Seconds()) }

// Result is the three phases and what they show.
type Result struct {
	// Config is what was measured; Players the players in all.
	Config  Config
	Players int
	// Quiet, Control and Flood are the phases.
	Quiet, Control, Flood Phase
	// BogusSent and HellosSent are what the flooder sent in the flood
	// phases.
	BogusSent, HellosSent uint64
	// Received is the datagrams the server read beyond the quiet rate,
	// PerBogus the heap objects allocated beyond it per such datagram,
	// UsPer the CPU the flood added per datagram, in µs.
	Received, PerBogus, UsPer float64
	// Dropped is the drops of the flood phases, all reasons.
	Dropped uint64
	// Rise is the flood's jitter p99 over the quiet one; Spread the
	// largest minus the smallest of the rounds' quiet p99s.
	Rise, Spread time.Duration
	// Conclusive is more than one round and a spread under 1 ms; Held
	// conclusive, a rise under 1 ms, under 0.01 allocations per flood
	// datagram, drops counted and every player still there.
	Conclusive, Held bool
	// Load1 is the machine's 1-minute load average at the end.
	Load1 string
}

// run is one run's state.
type run struct {
	cfg       Config
	rig       *fleet.Rig
	res       Result
	quietP99s []time.Duration
	kinds     string
}

// Run measures the rounds of the three phases.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	rig, err := fleet.StartRig(fleet.RigConfig{Matches: cfg.Matches, Players: cfg.Players, Procs: cfg.Procs, Workers: cfg.Workers,
		UDP: cfg.UDP, Command: cfg.Command, Log: cfg.Log})
	if err != nil {
		return Result{}, err
	}
	defer rig.Close()
	r := &run{cfg: cfg, rig: rig, kinds: strings.Join(cfg.Kinds, ",")}
	r.res.Config, r.res.Players = cfg, rig.Want
	res := &r.res
	for round := range cfg.Rounds {
		for _, ph := range []struct {
			name   string
			p      *Phase
			target string
		}{{"quiet", &res.Quiet, ""}, {"control", &res.Control, Sink}, {"flood", &res.Flood, rig.Addr.String()}} {
			if err := ctx.Err(); err != nil {
				return *res, err
			}
			before := ph.p.Lag
			if err := r.measure(ph.p, ph.target); err != nil {
				return *res, err
			}
			w := ph.p.Lag
			for i := range w.Counts {
				w.Counts[i] -= before.Counts[i]
			}
			p99 := w.Quantile(0.99)
			if ph.p == &res.Quiet {
				r.quietP99s = append(r.quietP99s, p99)
			}
			fmt.Fprintf(cfg.Log, "bench flood: round %d %s: jitter p99 %s ms, %d players\n", round+1, ph.name, bench.Ms(p99), ph.p.Players)
		}
	}
	r.judge()
	return *res, nil
}

// measure runs one phase's window: with a flooder aimed at target ("":
// none), started a second before the window.
func (r *run) measure(p *Phase, target string) error {
	var out bytes.Buffer
	var flooder *exec.Cmd
	if target != "" {
		var err error
		c := r.cfg
		flooder, err = bench.Start(c.Command, &out, c.Log, "bench", "flood", "--flood-server", target, "--kinds", r.kinds,
			"--rate", strconv.Itoa(c.Rate), "--hello-rate", strconv.Itoa(c.HelloRate), "--hello-ports", strconv.Itoa(c.HelloPorts))
		if err != nil {
			return err
		}
	}
	time.Sleep(time.Second) // warm-up
	a := r.rig.Sample()
	time.Sleep(time.Duration(r.cfg.Seconds * float64(time.Second)))
	p.add(a, r.rig.Sample(), r.cfg.Drops)
	if flooder != nil {
		bench.Stop(flooder)
		if target != Sink {
			n := bench.ParseKV(bench.LastLine(out.String()))
			b, _ := strconv.ParseUint(n["bogus_sent"], 10, 64)
			h, _ := strconv.ParseUint(n["hellos_sent"], 10, 64)
			r.res.BogusSent, r.res.HellosSent = r.res.BogusSent+b, r.res.HellosSent+h
		}
	}
	return nil
}

// judge works out what the flood brought: the datagrams read, and the
// heap objects allocated, beyond the quiet window's rates over the same
// time; and whether the server held.
func (r *run) judge() {
	res := &r.res
	quiet, flood := res.Quiet, res.Flood
	res.Received = float64(flood.DgIn) - quiet.perSecond(quiet.DgIn)*flood.Wall.Seconds()
	allocs := float64(flood.Mallocs) - quiet.perSecond(quiet.Mallocs)*flood.Wall.Seconds()
	res.PerBogus = allocs / max(res.Received, 1)
	res.UsPer = (flood.CPU.Seconds() - quiet.CPU.Seconds()*flood.Wall.Seconds()/quiet.Wall.Seconds()) * 1e6 / max(res.Received, 1)
	for _, n := range flood.Drops {
		res.Dropped += n
	}
	res.Rise = flood.JitterP99() - quiet.JitterP99()
	// The noise: how far apart the quiet rounds' p99s are. A rise under
	// 1 ms says something only when they are closer than that.
	res.Spread = slices.Max(r.quietP99s) - slices.Min(r.quietP99s)
	res.Conclusive = r.cfg.Rounds > 1 && res.Spread < time.Millisecond
	res.Held = res.Conclusive && res.Rise < time.Millisecond && res.PerBogus < 0.01 && res.Dropped > 0 && flood.Players == r.rig.Want && flood.PlayerTicks > 0
	res.Load1 = bench.LoadAvg()
}

// Pairs returns the command's key=value pairs, in the order of its line.
func (r Result) Pairs() []any {
	c, ms := r.Config, bench.Ms
	quiet, control, flood := r.Quiet, r.Control, r.Flood
	return []any{
		"flood_rate", c.Rate,
		"hello_rate", c.HelloRate,
		"hello_ports", c.HelloPorts,
		"kinds", strings.Join(c.Kinds, ","),
		"matches", c.Matches,
		"players", r.Players,
		"seconds", c.Seconds,
		"rounds", c.Rounds,
		"bogus_sent", r.BogusSent,
		"hellos_sent", r.HellosSent,
		"flood_received", int64(r.Received),
		"jitter_p99_quiet_ms", ms(quiet.JitterP99()),
		"jitter_p99_control_ms", ms(control.JitterP99()),
		"jitter_p99_flood_ms", ms(flood.JitterP99()),
		"jitter_rise_ms", ms(r.Rise),
		"jitter_rise_vs_control_ms", ms(flood.JitterP99() - control.JitterP99()),
		"jitter_p99_quiet_spread_ms", ms(r.Spread),
		"jitter_p50_quiet_ms", ms(quiet.Lag.Quantile(0.5)),
		"jitter_p50_control_ms", ms(control.Lag.Quantile(0.5)),
		"jitter_p50_flood_ms", ms(flood.Lag.Quantile(0.5)),
		"conclusive", r.Conclusive,
		"late_inputs_per_1000_quiet", quiet.latePer1000(),
		"late_inputs_per_1000_flood", flood.latePer1000(),
		"cpu_pct_quiet", quiet.cpuPct(),
		"cpu_pct_flood", flood.cpuPct(),
		"us_per_flood_datagram", fmt.Sprintf("%.2f", r.UsPer),
		"dropped_total", r.Dropped,
		"dropped_reasons", c.Format(flood.Drops),
		"retries", flood.Retries,
		"kernel_drops_quiet", quiet.KernelDrops,
		"kernel_drops_flood", flood.KernelDrops,
		"allocs_per_bogus", fmt.Sprintf("%.4f", r.PerBogus),
		"players_after", flood.Players,
		"load1", r.Load1,
		"held", r.Held,
	}
}

// Keys is what bench flood's help says of its output.
const Keys = `The matches (bench fleet's: one host.Multi on 127.0.0.1, load bots in
child processes) are measured in three phases of --seconds each, --rounds
times: quiet; control (a child process floods a socket of its own: the
machine does the flood's work, the server none of it); flood (the same
child floods the server from ` + IP + `: --rate bogus datagrams a second
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
