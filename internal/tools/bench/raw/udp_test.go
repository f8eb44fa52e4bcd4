//go:build linux

package raw

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport/udp"
)

// BenchmarkUDPServerCPU measures the CPU a rewind server spends per
// player-tick over UDP, against the raw socket cost of the same
// datagrams, in one run:
//
//   - rewind: a rewind.Host over UDP (the light test game, so that the figure is the
//     netcode's, not a game's) and N bots in child processes (so that
//     their CPU is not the server's);
//   - raw: a plain net.UDPConn server with a reader goroutine and a
//     ticker sending each peer one datagram a tick, and N child processes
//     sending one datagram a tick; sizes are the rewind run's means.
//
// CPU is the benchmark process's user+system time (getrusage) over the
// measured window: every thread of the server, runtime included. The raw
// figure is scaled to the rewind run's datagram count. Run with
// -benchtime=1x (b.N is ignored; the window is benchUDPWindow).
func BenchmarkUDPServerCPU(b *testing.B) {
	const players, rounds = 8, 2
	var rw, raw, ratio []float64
	for range rounds {
		r := benchRewindServer(b, players, false)
		inSize := int(r.bytesIn / max(r.dgIn, 1))
		outSize := int(r.bytesOut / max(r.dgOut, 1))
		w := benchRawServer(b, players, inSize, outSize)
		// The raw cost of the rewind run's datagrams, per player-tick.
		rawPer := w.cpu.Seconds() / float64(w.dgIn+w.dgOut) * float64(r.dgIn+r.dgOut) / float64(r.playerTicks) * 1e6
		rwPer := r.cpu.Seconds() / float64(r.playerTicks) * 1e6
		rw, raw, ratio = append(rw, rwPer), append(raw, rawPer), append(ratio, rwPer/rawPer)
		b.Logf("rewind: %d player-ticks, %v CPU, %.2f µs/player-tick, datagrams in %d (%d B) out %d (%d B); raw: %v CPU for %d in + %d out, %.2f µs per rewind player-tick; ratio %.2f",
			r.playerTicks, r.cpu, rwPer, r.dgIn, inSize, r.dgOut, outSize, w.cpu, w.dgIn, w.dgOut, rawPer, rwPer/rawPer)
	}
	b.ReportMetric(median(rw), "us/player-tick")
	b.ReportMetric(median(raw), "raw-us/player-tick")
	b.ReportMetric(median(ratio), "x-raw")
}

// benchUDPWindow is the measured stretch of each run, after a warm-up.
const (
	benchUDPWindow = 3 * time.Second
	benchUDPWarmup = time.Second
)

type udpBenchRun struct {
	cpu                            time.Duration
	playerTicks                    uint64
	dgIn, dgOut, bytesIn, bytesOut uint64
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startBenchBots starts n child processes of this test binary running
// TestUDPBenchHelper with spec.
func startBenchBots(b *testing.B, n int, spec string) []*exec.Cmd {
	var cmds []*exec.Cmd
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestUDPBenchHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), "REWIND_UDP_BENCH="+spec)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	return cmds
}

func stopBenchBots(cmds []*exec.Cmd) {
	for _, c := range cmds {
		c.Process.Kill()
		c.Wait()
	}
}

// BenchmarkUDPSealedCPU measures what sealing costs the server: the
// rewind run of BenchmarkUDPServerCPU over sealed UDP (the default) and
// over the plaintext framing (UDPConfig.Plaintext), alternately, in
// rounds. It reports each one's CPU per player-tick, their ratio, and the
// mean bytes per datagram in and out of each. Run with -benchtime=1x.
func BenchmarkUDPSealedCPU(b *testing.B) {
	const players, rounds = 8, 3
	var sealed, plain, ratio []float64
	var sIn, sOut, pIn, pOut uint64
	for range rounds {
		p := benchRewindServer(b, players, true)
		s := benchRewindServer(b, players, false)
		perS := s.cpu.Seconds() / float64(s.playerTicks) * 1e6
		perP := p.cpu.Seconds() / float64(p.playerTicks) * 1e6
		sealed, plain, ratio = append(sealed, perS), append(plain, perP), append(ratio, perS/perP)
		sIn, sOut = s.bytesIn/max(s.dgIn, 1), s.bytesOut/max(s.dgOut, 1)
		pIn, pOut = p.bytesIn/max(p.dgIn, 1), p.bytesOut/max(p.dgOut, 1)
		b.Logf("sealed %.2f µs/player-tick (%d B in, %d B out per datagram); plaintext %.2f µs/player-tick (%d B in, %d B out); ratio %.2f",
			perS, sIn, sOut, perP, pIn, pOut, perS/perP)
	}
	b.ReportMetric(median(sealed), "sealed-us/player-tick")
	b.ReportMetric(median(plain), "plain-us/player-tick")
	b.ReportMetric(median(ratio), "x-plain")
	b.ReportMetric(float64(sOut)-float64(pOut), "B-overhead/datagram")
}

func benchRewindServer(b *testing.B, players int, plaintext bool) udpBenchRun {
	h, err := rewind.HostUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", rewind.HostOptions{
		Server: server.Config{StartPlayers: players},
		UDP:    rewind.UDPConfig{Plaintext: plaintext},
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	addr, _ := h.UDPAddr() // HostUDP's host has one
	kind := "rewind "
	if plaintext {
		kind = "rewind-plain "
	}
	bots := startBenchBots(b, players, kind+addr.String())
	defer func() {
		stopBenchBots(bots)
		cancel()
		<-done
		h.Close()
	}()
	deadline := time.Now().Add(30 * time.Second)
	for h.Stats().Match.Players < players || !h.Stats().Running {
		if time.Now().After(deadline) {
			b.Fatalf("the bots did not join: %+v", h.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(benchUDPWarmup)
	s0, c0 := h.Stats(), processCPU()
	time.Sleep(benchUDPWindow)
	s1, c1 := h.Stats(), processCPU()
	if s1.Match.Players != players {
		b.Fatalf("players left during the run: %+v", s1)
	}
	return udpBenchRun{
		cpu:         c1 - c0,
		playerTicks: s1.Total.PlayerTicks - s0.Total.PlayerTicks,
		dgIn:        s1.UDP.DatagramsIn - s0.UDP.DatagramsIn,
		dgOut:       s1.UDP.DatagramsOut - s0.UDP.DatagramsOut,
		bytesIn:     s1.UDP.BytesIn - s0.UDP.BytesIn,
		bytesOut:    s1.UDP.BytesOut - s0.UDP.BytesOut,
	}
}

// benchRawServer runs the raw side: the raw socket loop (Loop) and
// players bots sending it one inSize datagram a tick.
func benchRawServer(b *testing.B, players, inSize, outSize int) udpBenchRun {
	loop, err := Start(outSize, 60)
	if err != nil {
		b.Fatal(err)
	}
	bots := startBenchBots(b, players, fmt.Sprintf("raw %s %d", loop.Addr(), inSize))
	defer func() {
		stopBenchBots(bots)
		loop.Close()
	}()
	if err := loop.WaitPeers(players, 30*time.Second); err != nil {
		b.Fatal(err)
	}
	time.Sleep(benchUDPWarmup)
	i0, o0 := loop.Counts()
	c0 := processCPU()
	time.Sleep(benchUDPWindow)
	i1, o1 := loop.Counts()
	c1 := processCPU()
	return udpBenchRun{cpu: c1 - c0, dgIn: i1 - i0, dgOut: o1 - o0}
}

// TestUDPBenchHelper is the bot process of BenchmarkUDPServerCPU; run
// alone (without REWIND_UDP_BENCH) it does nothing. It plays until killed.
func TestUDPBenchHelper(t *testing.T) {
	spec := strings.Fields(os.Getenv("REWIND_UDP_BENCH"))
	if len(spec) == 0 {
		t.Skip("the bot process of BenchmarkUDPServerCPU (REWIND_UDP_BENCH unset)")
	}
	ctx := context.Background()
	switch spec[0] {
	case "rewind", "rewind-plain":
		conn, err := udp.Dial(spec[1], udp.Config{Plaintext: spec[0] == "rewind-plain"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.New[testgame.Input](&testgame.Game{}, conn, client.Config{})
		if err != nil {
			t.Fatal(err)
		}
		c.SetInputFunc(func(tick uint32) testgame.Input {
			id, _ := c.Player()
			return testgame.Bot(id, tick)
		})
		err = rewind.Drive(ctx, c, 4*time.Millisecond, nil, conn.Ready())
		t.Fatal(err)
	case "raw":
		size, _ := strconv.Atoi(spec[2])
		if err := RunBots(ctx, BotsConfig{Server: spec[1], Local: "127.0.0.1", Count: 1, Size: size, Rate: 60}); err != nil {
			t.Fatal(err)
		}
	}
}
