package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rewindnet/rewind/games/cards"
	"github.com/rewindnet/rewind/internal/privatesim"
)

func init() {
	registerBench("private", "play the cards match (private hands, server-only deck) in the simulator with every datagram captured and searched for hidden cards", runBenchPrivate)
}

// benchPrivateKeys is what bench private's help says of its result keys.
const benchPrivateKeys = `The cards example (games/cards) is played twice over the network
simulator in made-up time: with its private scenes, then with everything
public (the public_ keys) to measure what hiding costs. Every datagram the
server sends is searched for the bytes of every card that player may not
know (the deck, the hole card, the others' hands) and of the dealer's
generator state and of the other players' private notes (an input field
tagged private), and so is every client's world every 10 ms; every tick
body each player is sent is decoded as a modified client would, counting
other players' private input fields that show (private_inputs_seen).

The last line of standard output is key=value pairs: leaked_bytes (bytes
of hidden values found where a player may not see them: must be 0; the
command exits non-zero otherwise), verified_equal (true when every
client's verified hash equaled the server's hash of that client's view on
every verified tick), hidden_read_repairs (repairs of worlds mispredicted
because Step read what the client cannot see), bytes_per_client_per_s
(what the server sent), server_cpu_ns_per_player_tick, view_hashes (the
server's per-view hashes: one per distinct view per tick), and the same
with public_ for the public game (whose leaked bytes show that the search
finds what it is sent).`

func runBenchPrivate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench private", "rewind bench private [flags]\n\n"+benchPrivateKeys, stderr)
	players := fs.Int("players", 4, "players (2 to 6)")
	seconds := fs.Float64("seconds", 2000.0/60, "match time in seconds (60 ticks a second)")
	loss := fs.Float64("loss", 0.1, "loss of every link, 0 to 1")
	latency := fs.Duration("latency", 30*time.Millisecond, "one-way latency")
	jitter := fs.Duration("jitter", 5*time.Millisecond, "jitter")
	seed := fs.Int64("seed", 1, "simulator and secret seed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *players < 2 || *players > cards.MaxPlayers:
		return usageError{fmt.Errorf("--players %d: want 2 to %d", *players, cards.MaxPlayers)}
	case *seconds <= 0 || *seconds > 3600:
		return usageError{errors.New("--seconds must be in (0, 3600]")}
	case *loss < 0 || *loss >= 1:
		return usageError{errors.New("--loss must be in [0, 1)")}
	case *latency <= 0 || *jitter < 0:
		return usageError{errors.New("--latency must be positive and --jitter not negative")}
	}
	cfg := privatesim.Config{Players: *players, Ticks: uint32(*seconds * 60), Loss: *loss, Latency: *latency, Jitter: *jitter, Seed: *seed}
	fmt.Fprintf(stderr, "cards, %d players, %d ticks, latency %v ±%v, loss %g, seed %d\n", cfg.Players, cfg.Ticks, *latency, *jitter, *loss, *seed)
	wall := time.Now()
	res, err := privatesim.Run(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "scenes: %v (%v)\n", res, time.Since(wall).Round(time.Millisecond))
	cfg.Public = true
	pub, err := privatesim.Run(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "public: %v\n", pub)
	keyValues(stdout,
		"players", res.Players,
		"ticks", res.Ticks,
		"secrets", res.Secrets,
		"verified_ticks", res.VerifiedTicks,
		"swaps", res.Swaps,
		"server_cpu_ns_per_player_tick", res.CPUPerPlayerTick().Nanoseconds(),
		"view_hashes", res.ViewHashes,
		"public_bytes_per_client_per_s", fmt.Sprintf("%.0f", pub.BytesPerClientPerSecond()),
		"public_server_cpu_ns_per_player_tick", pub.CPUPerPlayerTick().Nanoseconds(),
		"public_repairs", pub.Repairs,
		"public_leaked_bytes", pub.LeakedBytes,
		"relayed_ticks", res.RelayedTicks,
		"private_inputs_seen", res.PrivateInputsSeen,
		"leaked_bytes", res.LeakedBytes,
		"verified_equal", res.VerifiedEqual(),
		"hidden_read_repairs", res.Repairs,
		"bytes_per_client_per_s", fmt.Sprintf("%.0f", res.BytesPerClientPerSecond()),
	)
	if res.LeakedBytes != 0 {
		return fmt.Errorf("%d bytes of hidden values reached players that may not see them", res.LeakedBytes)
	}
	if res.PrivateInputsSeen != 0 {
		return fmt.Errorf("%d private inputs of other players in the tick bodies sent", res.PrivateInputsSeen)
	}
	if !res.VerifiedEqual() {
		return fmt.Errorf("%d of %d verified client-ticks differ from the server's view", res.Unequal, res.VerifiedTicks)
	}
	return nil
}
