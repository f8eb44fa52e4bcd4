// Command udpmatch plays a networked match in one program: a host on a
// UDP socket of 127.0.0.1 and two players that connect to it over UDP,
// each predicting and rolling back as over the internet. After two
// seconds the host ends the match on purpose; both players then hold
// every tick of it, verified against the server's hashes, and the program
// prints the last tick and the hash of the world after it, which the two
// players agree on. The game is package race (examples/race), which
// examples/room plays too.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/examples/race"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "udpmatch:", err)
		os.Exit(1)
	}
}

// run hosts the match, plays it with two players, ends it and prints
// what the players verified.
func run(ctx context.Context, out io.Writer) error {
	h, err := rewind.HostUDP[race.Input](&race.Game{}, "127.0.0.1:0", rewind.HostOptions{
		Server: rewind.ServerConfig{StartPlayers: 2},
	})
	if err != nil {
		return err
	}
	defer h.Close()
	addr, _ := h.UDPAddr()
	fmt.Fprintf(out, "host listening on %v\n", addr)
	playing, stop := context.WithTimeout(ctx, race.PlayTime)
	defer stop()
	hostDone := make(chan error, 1)
	go func() { hostDone <- h.Run(playing) }()

	players := make([]*rewind.Session[race.Input], 2)
	done := make(chan error, len(players))
	for i := range players {
		s, err := rewind.ConnectUDP[race.Input](ctx, &race.Game{}, addr.String(), rewind.UDPOptions{})
		if err != nil {
			return err
		}
		defer s.Close()
		players[i] = s
		s.SetInputFunc(race.Runner(i))
		go func() { done <- s.Run(ctx) }()
	}
	if err := <-hostDone; err != nil {
		return err
	}
	// End the match on purpose: every player is sent the ticks it lacks,
	// then a goodbye naming the last tick.
	if err := h.End(ctx); err != nil {
		return err
	}
	for range players {
		var ended *rewind.EndedError
		if err := <-done; !errors.As(err, &ended) || !ended.Complete() {
			return fmt.Errorf("a player did not see the whole match: %v", err)
		}
	}
	return report(out, players)
}

// report prints each player's last verified tick and the hash of its
// world after it, and fails when the players disagree.
func report(out io.Writer, players []*rewind.Session[race.Input]) error {
	var ticks [2]uint32
	var hashes [2]uint64
	for i, s := range players {
		var ok bool
		if ticks[i], hashes[i], ok = race.Verified(s); !ok {
			return fmt.Errorf("player %d verified no tick", i)
		}
		fmt.Fprintf(out, "player %d: verified tick %d, world hash %016x\n", i, ticks[i], hashes[i])
	}
	if ticks[0] != ticks[1] || hashes[0] != hashes[1] {
		return errors.New("the players disagree")
	}
	fmt.Fprintf(out, "verified tick=%d hash=%016x: both players agree\n", ticks[0], hashes[0])
	return nil
}
