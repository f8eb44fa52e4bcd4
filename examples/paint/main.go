// Command paint plays the example game of package paint (examples/paint/
// game) the way the engine's programs play any registered game: it finds
// the game by its name in the registry (package games), hosts a match on
// a UDP socket of 127.0.0.1 and plays it with two of the game's bots,
// each predicting and rolling back over UDP, until both have verified
// tick 600; it prints each one's hash of that tick, which they agree on.
// The same game, imported by cmd/rewind, is `rewind serve --game paint`
// and `rewind play --game paint` (docs/games.md).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/rewindnet/rewind"
	_ "github.com/rewindnet/rewind/examples/paint/game" // registers "paint"
	"github.com/rewindnet/rewind/games"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, rewind.DefaultTickRate, 600); err != nil {
		fmt.Fprintln(os.Stderr, "paint:", err)
		os.Exit(1)
	}
}

// run hosts a match of "paint" at rate ticks a second and plays it with
// two bots until both verified tick until, then prints their hashes.
func run(ctx context.Context, out io.Writer, rate int, until uint32) error {
	e, err := games.Lookup("paint")
	if err != nil {
		return err
	}
	g, err := e.New(games.Values{games.TickRate: rate})
	if err != nil {
		return err
	}
	h, err := rewind.HostUDP(g, "127.0.0.1:0", rewind.HostOptions{Server: rewind.ServerConfig{StartPlayers: 2}})
	if err != nil {
		return err
	}
	defer h.Close()
	addr, _ := h.UDPAddr()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go h.Run(ctx)
	var mu sync.Mutex
	hashes := map[int]uint64{}
	done := make(chan error, 2)
	for i := range 2 {
		go func() { done <- playBot(ctx, e, addr.String(), rate, until, i, &mu, hashes) }()
	}
	for range 2 {
		if err := <-done; err != nil {
			return err
		}
	}
	for i := range 2 {
		fmt.Fprintf(out, "bot %d: verified tick %d hash %016x\n", i, until, hashes[i])
	}
	if hashes[0] != hashes[1] {
		return errors.New("the bots disagree")
	}
	return nil
}

// playBot plays the game's bot number i (scripted, seeded by i) until it
// verified tick until, noting that tick's hash in hashes[i].
func playBot(ctx context.Context, e *games.Entry, addr string, rate int, until uint32, i int, mu *sync.Mutex, hashes map[int]uint64) error {
	g, err := e.New(games.Values{games.TickRate: rate})
	if err != nil {
		return err
	}
	bot, err := e.Bot(games.Scripted, uint64(i))
	if err != nil {
		return err
	}
	errDone := errors.New("done")
	var opts rewind.UDPOptions
	opts.Client.OnVerified = func(tick uint32, hash uint64) {
		if tick == until {
			mu.Lock()
			hashes[i] = hash
			mu.Unlock()
		}
	}
	opts.OnUpdate = func(_ time.Time, st rewind.Stats) error {
		if st.Verified >= until {
			return errDone
		}
		return nil
	}
	s, err := rewind.ConnectUDP(ctx, g, addr, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	s.SetInputFunc(func(t uint32) games.Input {
		id, _ := s.Player()
		return bot(id, t)
	})
	if err := s.Run(ctx); !errors.Is(err, errDone) {
		return fmt.Errorf("bot %d: %v", i, err)
	}
	return nil
}
