package fleet

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/tools/bench"
	"github.com/rewindnet/rewind/internal/tools/cputime"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport/udp"
)

// RigConfig is a Rig's matches and bots.
type RigConfig struct {
	// Matches is the rooms opened, Players the load bots in each, Procs
	// the child processes running them.
	Matches, Players, Procs int
	// Workers and TickPhases are the host.Multi's (0: its defaults).
	Workers, TickPhases int
	// SocketReader is host.Options.SocketReader: the socket read as
	// datagrams arrive rather than drained at the tick phases.
	SocketReader bool
	// UDP is the host's socket configuration.
	UDP udp.Config
	// Command runs the rewind command (see Config.Command).
	Command []string
	// BotSched is how the bots' processes are scheduled (Config.BotSched).
	BotSched bench.Sched
	// Log gets the progress lines and the children's errors.
	Log io.Writer
}

// Rig is a host.Multi on 127.0.0.1 with its rooms, each with its match of
// load bots, the bots in child processes: what bench fleet measures at
// each step and bench flood in each phase.
type Rig struct {
	// Host is the host.Multi; Addr its UDP address.
	Host *host.Multi[testgame.Input]
	Addr netip.AddrPort
	// Want is the players in all.
	Want   int
	cancel context.CancelFunc
	done   chan error
	bots   []*exec.Cmd
}

// StartRig opens the host, the rooms and their bots (dealt round the
// processes) and waits until they play (past a deadline, with at least
// half of them, saying so in the log).
func StartRig(cfg RigConfig) (_ *Rig, err error) {
	m, players := cfg.Matches, cfg.Players
	ucfg := cfg.UDP
	ucfg.MaxUnprovenPerIP = 64 // the bots' handshakes come 16 at a time per address
	h, err := host.ListenUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", host.Options{
		HostOptions:  rewind.HostOptions{Server: server.Config{StartPlayers: players, MaxPlayers: players}, UDP: ucfg},
		MaxMatches:   m,
		Workers:      cfg.Workers,
		TickPhases:   cfg.TickPhases,
		SocketReader: cfg.SocketReader,
	})
	if err != nil {
		return nil, err
	}
	rooms := make([]string, m)
	for i := range rooms {
		if rooms[i], err = h.Open(""); err != nil {
			h.Close()
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Rig{Host: h, Want: m * players, cancel: cancel, done: make(chan error, 1)}
	r.Addr, _ = h.UDPAddr()
	go func() { r.done <- h.Run(ctx) }()
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	if err := r.startBots(cfg, rooms); err != nil {
		return nil, err
	}
	return r, r.waitPlaying(m, cfg.Log)
}

// startBots starts the bots: every room P times, dealt round the
// processes.
func (r *Rig) startBots(cfg RigConfig, rooms []string) error {
	per := make([][]string, min(cfg.Procs, cfg.Matches*cfg.Players))
	k := 0
	for _, code := range rooms {
		for range cfg.Players {
			per[k%len(per)] = append(per[k%len(per)], code)
			k++
		}
	}
	for i, rs := range per {
		cmd, err := bench.StartSched(cfg.BotSched, cfg.Command, nil, cfg.Log, "bench", "fleet", "--bot-server", r.Addr.String(), "--bot-local", BotIP(i), "--bot-rooms", strings.Join(rs, ","))
		if err != nil {
			return err
		}
		r.bots = append(r.bots, cmd)
	}
	return nil
}

// waitPlaying waits for the players. Bots that lose their session
// (reaped as unproven on a starved machine) dial again; past the
// deadline the step is measured with the players there, and says so
// (players=, sustained=false).
func (r *Rig) waitPlaying(m int, log io.Writer) error {
	h := r.Host
	deadline := time.Now().Add(30*time.Second + time.Duration(r.Want)*20*time.Millisecond)
	for s := h.Stats(); s.Players < r.Want || s.Running < m; s = h.Stats() {
		if time.Now().After(deadline) {
			if s.Players < r.Want/2 {
				return fmt.Errorf("the bots did not join: %d of %d players, %d of %d matches running", s.Players, r.Want, s.Running, m)
			}
			fmt.Fprintf(log, "bench: %d matches: measuring with %d of %d players (%d matches running)\n", m, s.Players, r.Want, s.Running)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// Close stops the bots and the host.
func (r *Rig) Close() {
	bench.Stop(r.bots...)
	r.cancel()
	<-r.done
	r.Host.Close()
}

// Sample is what a measurement window starts and ends with.
type Sample struct {
	// Stats, Lag and StartLag (TickStartLag) are the host's.
	Stats         host.Stats
	Lag, StartLag host.Lag
	// CPU is this process's, user+system; At when the sample was taken.
	CPU time.Duration
	At  time.Time
	// Mallocs is the heap objects allocated by this process so far,
	// GCs its garbage collections.
	Mallocs uint64
	GCs     uint32
	// RunDelay is how long this process's threads have waited for a CPU
	// (bench.RunDelay); BotCPU the bots' processes' CPU.
	RunDelay, BotCPU time.Duration
	// KernelDrops counts the datagrams the kernel dropped for the
	// server's socket (its receive buffer full), where it says.
	KernelDrops uint64
}

// Sample takes a sample.
func (r *Rig) Sample() Sample {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return Sample{Stats: r.Host.Stats(), Lag: r.Host.TickLag(), StartLag: r.Host.TickStartLag(), CPU: cputime.Process(), At: time.Now(), Mallocs: ms.Mallocs, GCs: ms.NumGC,
		RunDelay: bench.RunDelay(), BotCPU: r.botCPU(), KernelDrops: bench.SocketDrops(r.Addr.Port())}
}

// botCPU returns the CPU the bots' processes have used so far.
func (r *Rig) botCPU() time.Duration {
	var sum time.Duration
	for _, c := range r.bots {
		sum += bench.ProcCPU(c.Process.Pid)
	}
	return sum
}
