package webdoom

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rewindnet/rewind/internal/tools/webdoomclient"
	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// play plays one round against the relay at base as WebDoom's clients
// do (a lobby socket each, a start, then a game socket each) and returns
// the seal latency per client per tic, unsorted.
func play(ctx context.Context, cfg Config, base string) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(cfg.Tics)*time.Second/35+30*time.Second)
	defer cancel()
	lobby, err := launch(ctx, base, cfg.Players)
	for _, c := range lobby {
		defer c.CloseNow()
	}
	if err != nil {
		return nil, err
	}
	n := cfg.Players
	sent, recv := make([][]time.Time, n), make([][]time.Time, n)
	games := make([]*webdoomclient.Conn, n)
	for i := range games {
		sent[i], recv[i] = make([]time.Time, cfg.Tics), make([]time.Time, cfg.Tics)
		if games[i], err = webdoomclient.Dial(ctx, base, fmt.Sprintf("/ws/game?slot=%d", i)); err != nil {
			return nil, err
		}
		defer games[i].CloseNow()
	}
	if err := playTics(ctx, cfg.Tics, games, sent, recv); err != nil {
		return nil, err
	}
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
	return lat, nil
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

// playTics plays tics tics on games as WebDoom's clients do: each client
// has its own socket, its own sender and its own reader; every client
// sends its cmd for tic t at the same moment, start + t/35 s (noting when
// in sent[i][t]), and notes in recv[i][t] when tic t's bundle came.
func playTics(ctx context.Context, tics int, games []*webdoomclient.Conn, sent, recv [][]time.Time) error {
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(games))
	start := time.Now().Add(50 * time.Millisecond)
	for i := range games {
		wg.Add(2)
		go func() { // sender: tic t at start + t/35 s, all clients at once
			defer wg.Done()
			msg := make([]byte, 0, wire.CmdSize)
			for t := 0; t < tics; t++ {
				time.Sleep(time.Until(start.Add(time.Duration(t) * time.Second / 35)))
				msg = wire.Cmd{Tic: uint32(t), Cmd: wire.NewTicCmd(int8(t), int8(i), 0, 0, 0, 0)}.Append(msg[:0])
				sent[i][t] = time.Now()
				if err := games[i].SendBinary(ctx, msg); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for t := 0; t < tics; t++ {
				b, err := games[i].ReadBundle(ctx)
				if err == nil && int(b.Tic) >= tics {
					err = fmt.Errorf("bundle for tic %d of %d", b.Tic, tics)
				}
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
