package fleet

import (
	"fmt"
	"strings"
	"time"

	"github.com/rewindnet/rewind/host"
)

// windows sums a step's measured windows: the server's (its process's
// CPU, the host's counters) and, interleaved with them, the raw loop's.
type windows struct {
	players                        int
	playerTicks, late              uint64
	cpu, wall                      time.Duration
	lag, startLag                  host.Lag
	dgIn, dgOut, bytesIn, bytesOut uint64
	updates, reads, flushes        uint64
	gcs                            uint32
	runDelay, botCPU               time.Duration

	rawPeers, inSize, outSize int
	rawIn, rawOut             uint64
	rawCPU                    time.Duration
	rounds                    []float64 // vs_raw of each round (its two windows alone)
}

// add adds the server's window from a to b.
func (w *windows) add(a, b Sample) {
	s0, s1 := a.Stats, b.Stats
	w.players = s1.Players
	w.playerTicks += s1.Total.PlayerTicks - s0.Total.PlayerTicks
	w.late += s1.Total.LateInputs - s0.Total.LateInputs
	w.cpu += b.CPU - a.CPU
	w.wall += b.At.Sub(a.At)
	w.lag = w.lag.Add(b.Lag.Sub(a.Lag))
	w.startLag = w.startLag.Add(b.StartLag.Sub(a.StartLag))
	w.dgIn += s1.UDP.DatagramsIn - s0.UDP.DatagramsIn
	w.dgOut += s1.UDP.DatagramsOut - s0.UDP.DatagramsOut
	w.bytesIn += s1.UDP.BytesIn - s0.UDP.BytesIn
	w.bytesOut += s1.UDP.BytesOut - s0.UDP.BytesOut
	w.updates += s1.Updates - s0.Updates
	w.reads += s1.UDP.Reads - s0.UDP.Reads
	w.flushes += s1.UDP.Flushes - s0.UDP.Flushes
	w.gcs += b.GCs - a.GCs
	w.runDelay += b.RunDelay - a.RunDelay
	w.botCPU += b.BotCPU - a.BotCPU
}

// server measures one window of the server of length d.
func (w *windows) server(r *Rig, d time.Duration) {
	a := r.Sample()
	time.Sleep(d)
	w.add(a, r.Sample())
}

// interleaved measures RawRounds rounds of a server window then a raw
// loop window, each cfg.Window/RawRounds long. The raw loop starts after
// the first server window, at that window's mean datagram sizes, with as
// many peers as the server has players; it is paused during the
// server's windows, and the server runs on during the loop's (its
// windows are not counted).
func (w *windows) interleaved(cfg Config, r *Rig) error {
	d := cfg.Window / RawRounds
	var loop *rawLoop
	defer func() {
		if loop != nil {
			loop.close()
		}
	}()
	for i := range RawRounds {
		tick0, dg0 := w.playerTicks, w.dgIn+w.dgOut
		cpu0 := w.cpu
		w.server(r, d)
		if w.dgIn == 0 || w.dgOut == 0 {
			return fmt.Errorf("no datagrams in the rewind run")
		}
		if loop == nil {
			w.inSize, w.outSize = int(w.bytesIn/w.dgIn), int(w.bytesOut/w.dgOut)
			w.rawPeers = max(w.players, 1)
			var err error
			if loop, err = startRawLoop(cfg, w.rawPeers, w.inSize, w.outSize); err != nil {
				return err
			}
			time.Sleep(time.Second) // the loop's warm-up
		} else {
			loop.resume()
			time.Sleep(200 * time.Millisecond) // the tickers and readers back in step
		}
		a, err := loop.sample()
		if err != nil {
			return err
		}
		time.Sleep(d)
		b, err := loop.sample()
		if err != nil {
			return err
		}
		if i < RawRounds-1 {
			loop.pause()
			time.Sleep(50 * time.Millisecond) // the loop's last datagrams handled
		}
		w.rawIn += b.in - a.in
		w.rawOut += b.out - a.out
		w.rawCPU += b.cpu - a.cpu
		raw := float64(b.in - a.in + b.out - a.out)
		ticks, dg := w.playerTicks-tick0, w.dgIn+w.dgOut-dg0
		if raw > 0 && ticks > 0 && dg > 0 {
			srv := (w.cpu - cpu0).Seconds() / float64(ticks)
			rawPer := (b.cpu - a.cpu).Seconds() / raw * float64(dg) / float64(ticks)
			w.rounds = append(w.rounds, srv/rawPer)
		}
	}
	return nil
}

// step is the step of m matches the windows measured.
func (w *windows) step(m int) Step {
	st := Step{
		Matches: m, Players: w.players, PlayerTicks: w.playerTicks,
		CPU: w.cpu, Wall: w.wall, LateInputs: w.late, JitterP99: w.lag.Quantile(0.99),
		DgIn: w.dgIn, DgOut: w.dgOut, BytesIn: w.bytesIn, BytesOut: w.bytesOut,
	}
	st.UsPerPlayerTick = st.CPU.Seconds() * 1e6 / float64(max(st.PlayerTicks, 1))
	if st.UsPerPlayerTick > 0 {
		st.PlayersPerCore = 1e6 / (TickRate * st.UsPerPlayerTick)
	}
	if raw := w.rawIn + w.rawOut; raw > 0 {
		// The raw CPU per datagram times the rewind run's datagrams, per
		// rewind player-tick.
		st.RawUsPerPlayerTick = w.rawCPU.Seconds() * 1e6 / float64(raw) * float64(w.dgIn+w.dgOut) / float64(max(w.playerTicks, 1))
	}
	return st
}

// roundRatios is the rounds' vs_raw, for the log.
func (w *windows) roundRatios() string {
	var b strings.Builder
	for i, r := range w.rounds {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%.2f", r)
	}
	return b.String()
}
