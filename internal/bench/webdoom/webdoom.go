// Package webdoom is `rewind bench webdoom`: WebDoom clients play at
// 35 Hz against an in-process tic relay over loopback, and the seal
// latency is measured: from the last of a tic's cmds being sent to its
// bundle arriving at each client.
package webdoom

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/rewindnet/rewind/internal/webdoomclient"
	"github.com/rewindnet/rewind/relay/webdoom"
	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// Config is the match played.
type Config struct {
	// Players is the clients (1..4), Tics the tics played (35 a second).
	Players, Tics int
	// Log gets the progress line (nil: none).
	Log io.Writer
}

// Result is the seal latencies and the server's counters.
type Result struct {
	// Config is what was played.
	Config Config
	// Latency holds a seal latency per client per tic, sorted.
	Latency []time.Duration
	// Stats is the server's.
	Stats webdoom.Stats
}

// Quantile returns the p-quantile of the latencies.
func (r Result) Quantile(p float64) time.Duration { return r.Latency[int(p*float64(len(r.Latency)-1))] }

// Summary is the line printed before the key=value line.
func (r Result) Summary() string {
	lat := r.Latency
	return fmt.Sprintf("seal latency (last cmd sent -> bundle received), %d samples: p50 %v p99 %v max %v", len(lat), r.Quantile(0.5), r.Quantile(0.99), lat[len(lat)-1])
}

// Pairs returns the command's key=value pairs, in the order of its line.
func (r Result) Pairs() []any {
	us := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Microsecond)) }
	lat, st := r.Latency, r.Stats
	return []any{"players", r.Config.Players, "tics", r.Config.Tics, "samples", len(lat), "p50_us", us(r.Quantile(0.5)), "p99_us", us(r.Quantile(0.99)),
		"max_us", us(lat[len(lat)-1]), "seals", st.Seals, "forced_seals", st.ForcedSeals, "fabrications", st.Fabrications}
}

// Run plays the match and measures.
func Run(ctx context.Context, cfg Config) (Result, error) {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	sent, recv, srv, err := play(ctx, cfg, log)
	if err != nil {
		return Result{}, err
	}
	n := cfg.Players
	var lat []time.Duration
	for t := 0; t < cfg.Tics; t++ {
		var last time.Time
		for i := 0; i < n; i++ {
			if sent[i][t].After(last) {
				last = sent[i][t]
			}
		}
		for i := 0; i < n; i++ {
			lat = append(lat, recv[i][t].Sub(last))
		}
	}
	slices.Sort(lat)
	return Result{Config: cfg, Latency: lat, Stats: srv}, nil
}

// play plays the match and returns, per client and tic, when its cmd was
// sent and its bundle received, and the server's counters.
func play(ctx context.Context, cfg Config, log io.Writer) (sent, recv [][]time.Time, _ webdoom.Stats, _ error) {
	scfg := webdoom.DefaultServerConfig()
	scfg.Countdown = time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, webdoom.Stats{}, err
	}
	srv := webdoom.NewServer(scfg)
	go srv.Serve(ln)
	defer srv.Close()
	base := "ws://" + ln.Addr().String()
	ctx, cancel := context.WithTimeout(ctx, time.Duration(cfg.Tics)*time.Second/35+30*time.Second)
	defer cancel()

	lobby, err := launch(ctx, base, cfg.Players)
	for _, c := range lobby {
		defer c.CloseNow()
	}
	if err != nil {
		return nil, nil, webdoom.Stats{}, err
	}
	n := cfg.Players
	sent = make([][]time.Time, n)
	recv = make([][]time.Time, n)
	games := make([]*webdoomclient.Conn, n)
	for i := range games {
		sent[i], recv[i] = make([]time.Time, cfg.Tics), make([]time.Time, cfg.Tics)
		if games[i], err = webdoomclient.Dial(ctx, base, fmt.Sprintf("/ws/game?slot=%d", i)); err != nil {
			return nil, nil, webdoom.Stats{}, err
		}
		defer games[i].CloseNow()
	}
	fmt.Fprintf(log, "bench webdoom: %d players, %d tics at 35 Hz (%.1f s)\n", n, cfg.Tics, float64(cfg.Tics)/35)
	if err := playTics(ctx, cfg.Tics, games, sent, recv); err != nil {
		return nil, nil, webdoom.Stats{}, err
	}
	return sent, recv, srv.Stats(), nil
}

// launch joins n players to the lobby at base, has the first start the
// match and waits for the launch; the caller closes the lobby connections
// returned, also with an error.
func launch(ctx context.Context, base string, n int) ([]*webdoomclient.Conn, error) {
	var lobby []*webdoomclient.Conn
	for i := 0; i < n; i++ {
		c, err := webdoomclient.Dial(ctx, base, "/ws/lobby")
		if err != nil {
			return lobby, err
		}
		lobby = append(lobby, c)
	}
	if err := lobby[0].SendJSON(ctx, `{"t":"start"}`); err != nil {
		return lobby, err
	}
	for {
		m, err := lobby[0].ReadLobby(ctx)
		if err != nil {
			return lobby, err
		}
		if m["t"] == "launch" {
			return lobby, nil
		}
	}
}

// playTics plays tics tics on games, a sender and a reader per client:
// client i sends tic t at 50 ms + t/35 s from now plus its own phase
// (7 ms × i), noting when in sent[i][t], and notes in recv[i][t] when
// tic t's bundle came.
func playTics(ctx context.Context, tics int, games []*webdoomclient.Conn, sent, recv [][]time.Time) error {
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(games))
	start := time.Now().Add(50 * time.Millisecond)
	for i := range games {
		wg.Add(2)
		go func() { // sender: tic t at start + t/35 s, each client at its own phase
			defer wg.Done()
			phase := time.Duration(i) * 7 * time.Millisecond
			for t := 0; t < tics; t++ {
				time.Sleep(time.Until(start.Add(phase + time.Duration(t)*time.Second/35)))
				sent[i][t] = time.Now()
				if err := games[i].SendCmd(ctx, uint32(t), wire.NewTicCmd(int8(t), 0, 0, 0, 0, 0)); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for t := 0; t < tics; t++ {
				b, err := games[i].ReadBundle(ctx)
				if err != nil {
					errs <- err
					return
				}
				recv[i][b.Tic] = time.Now()
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
