// Package private is `rewind-bench private`: the cards game (private
// hands, a server-only deck) played in the simulator with every datagram
// captured and searched for hidden cards, then played again with
// everything public to measure what hiding costs.
package private

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rewindnet/rewind/internal/tools/bench"
	"github.com/rewindnet/rewind/internal/tools/privatesim"
)

// Config is the cards match: privatesim's (its Public field is ignored:
// both games are played).
type Config struct {
	privatesim.Config
	// Log gets the progress lines (nil: none).
	Log io.Writer
}

// Result is the two matches' figures.
type Result struct {
	// Private is the game with its private scenes; Public the game with
	// everything public.
	Private, Public privatesim.Result
}

// Run plays both games. A game that leaked, showed other players'
// private inputs or whose verified hashes differ from the server's
// returns a complete Result and a bench.Failure.
func Run(ctx context.Context, cfg Config) (Result, error) {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	c := cfg.Config
	c.Public = false
	fmt.Fprintf(log, "cards, %d players, %d ticks, latency %v ±%v, loss %g, seed %d\n", c.Players, c.Ticks, c.Latency, c.Jitter, c.Loss, c.Seed)
	wall := time.Now()
	var r Result
	var err error
	if r.Private, err = privatesim.Run(c); err != nil {
		return r, err
	}
	fmt.Fprintf(log, "scenes: %v (%v)\n", r.Private, time.Since(wall).Round(time.Millisecond))
	if err := ctx.Err(); err != nil {
		return r, err
	}
	c.Public = true
	if r.Public, err = privatesim.Run(c); err != nil {
		return r, err
	}
	fmt.Fprintf(log, "public: %v\n", r.Public)
	res := r.Private
	switch {
	case res.LeakedBytes != 0:
		return r, bench.Failure{Err: fmt.Errorf("%d bytes of hidden values reached players that may not see them", res.LeakedBytes)}
	case res.PrivateInputsSeen != 0:
		return r, bench.Failure{Err: fmt.Errorf("%d private inputs of other players in the tick bodies sent", res.PrivateInputsSeen)}
	case !res.VerifiedEqual():
		return r, bench.Failure{Err: fmt.Errorf("%d of %d verified client-ticks differ from the server's view", res.Unequal, res.VerifiedTicks)}
	}
	return r, nil
}

// Pairs returns the command's key=value pairs, in the order of its line.
func (r Result) Pairs() []any {
	res, pub := r.Private, r.Public
	return []any{
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
	}
}

// Keys is what bench private's help says of its result keys.
const Keys = `The cards example (games/cards) is played twice over the network
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
