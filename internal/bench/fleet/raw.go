package fleet

import (
	"fmt"
	"os/exec"
	"strconv"
	"time"

	"github.com/rewindnet/rewind/internal/bench"
	"github.com/rewindnet/rewind/internal/bench/raw"
	"github.com/rewindnet/rewind/internal/cputime"
)

// rawStep measures the raw socket loop (raw.Loop) for st's datagrams:
// each peer written one datagram of the rewind run's mean size per tick;
// as many peers as st had players, in child processes sending one
// datagram a tick each. It sets st.RawUsPerPlayerTick: the raw CPU per
// datagram times the rewind run's datagrams, per rewind player-tick.
func rawStep(cfg Config, st *Step) error {
	if st.DgIn == 0 || st.DgOut == 0 {
		return fmt.Errorf("no datagrams in the rewind run")
	}
	// Sizes: the rewind run's means (UDP payloads; the stats count bytes
	// only per socket, so take them from a fresh sample of the run).
	inSize, outSize := 60, 120
	if st.BytesIn > 0 {
		inSize, outSize = int(st.BytesIn/st.DgIn), int(st.BytesOut/st.DgOut)
	}
	loop, err := raw.Start(outSize, TickRate)
	if err != nil {
		return err
	}
	want := st.Players
	procs := min(cfg.Procs, want)
	var bots []*exec.Cmd
	defer func() {
		bench.Stop(bots...)
		loop.Close()
	}()
	for i := range procs {
		n := want / procs
		if i < want%procs {
			n++
		}
		cmd, err := bench.Start(cfg.Command, nil, cfg.Log, "bench", "fleet", "--bot-server", loop.Addr(), "--bot-local", BotIP(i),
			"--bot-raw", strconv.Itoa(inSize), "--bot-count", strconv.Itoa(n))
		if err != nil {
			return err
		}
		bots = append(bots, cmd)
	}
	if err := loop.WaitPeers(want, 60*time.Second); err != nil {
		return err
	}
	time.Sleep(time.Second)
	i0, o0 := loop.Counts()
	c0 := cputime.Process()
	time.Sleep(cfg.Window)
	i1, o1 := loop.Counts()
	c1 := cputime.Process()
	raw := float64((i1 - i0) + (o1 - o0))
	st.RawUsPerPlayerTick = (c1 - c0).Seconds() * 1e6 / raw * float64(st.DgIn+st.DgOut) / float64(max(st.PlayerTicks, 1))
	fmt.Fprintf(cfg.Log, "bench fleet: raw loop: %d peers, %v CPU for %d in + %d out (%d B in, %d B out)\n",
		want, (c1 - c0).Round(time.Millisecond), i1-i0, o1-o0, inSize, outSize)
	return nil
}
