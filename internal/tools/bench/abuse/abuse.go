// Package abuse is `rewind-bench abuse`: the attack suite of issues 15
// and 30 (internal/tools/attack) against real sockets on 127.0.0.1, one result per
// attack.
package abuse

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/rewindnet/rewind/internal/tools/attack"
)

// Config is the attacks run.
type Config struct {
	// Short runs the short versions (seconds each).
	Short bool
	// Attacks names the attacks to run (nil: all of attack.All).
	Attacks []string
	// Log gets a line as each attack starts (nil: none).
	Log io.Writer
	// OnResult, when set, gets each attack's result as soon as it ends.
	OnResult func(attack.Result)
	// Extra are attacks run after attack.All's (those that need the
	// command itself: attack.ServeJSONMetrics).
	Extra []attack.Attack
}

// Unknown returns the first of names that names no attack of
// attack.All or extra, and whether there is one.
func Unknown(names []string, extra ...attack.Attack) (string, bool) {
	all := append(slices.Clip(attack.All), extra...)
	for _, n := range names {
		if !slices.ContainsFunc(all, func(a attack.Attack) bool { return a.Name == n }) {
			return n, true
		}
	}
	return "", false
}

// Run runs the attacks in attack.All's order, then cfg.Extra, and
// returns their results; it stops after the attack running when ctx
// ends, with ctx's error.
func Run(ctx context.Context, cfg Config) ([]attack.Result, error) {
	var out []attack.Result
	for _, a := range append(slices.Clip(attack.All), cfg.Extra...) {
		if cfg.Attacks != nil && !slices.Contains(cfg.Attacks, a.Name) {
			continue
		}
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "bench abuse: %s\n", a.Name)
		}
		r := a.Run(ctx, attack.Config{Short: cfg.Short})
		out = append(out, r)
		if cfg.OnResult != nil {
			cfg.OnResult(r)
		}
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
	}
	return out, nil
}

// Broken returns the names of the results that did not hold (held=false
// in their lines: a defence broke, or the attack could not run).
func Broken(rs []attack.Result) []string {
	var out []string
	for _, r := range rs {
		if !r.Held || r.Err != nil {
			out = append(out, r.Name)
		}
	}
	return out
}

// Keys is what bench abuse's help says of its output.
const Keys = `Each attack prints one line of key=value pairs on standard output,
attack=NAME held=true|false and its figures; held=true means the legitimate
players were not kept out or disturbed and what the attacker held stayed
bounded. Attacks: ` + "unproven_sessions, room_squatters, code_guessing, demo_traces, demo_traces_quota, idle_http, refusal_logs, big_frame, sniffed_cookie, forged_from_address, code_guessing_fleet, handshake_flood, handshake_fresh_flood, lookup_prefix, console_state_flood, room_key_lurker, idle_slot_hoard, datachannel_flood, rogue_match_server, hoarded_slots, json_per_address, desync_storm, json_refusal_logs, room_caps, hostile_text, lobby_idle, redis_killed, redis_restarted_empty, serve_json_metrics" + `
(serve_json_metrics runs the command's own serve in-process; redis_killed
and redis_restarted_empty start a redis-server of their own, held=false
with an error where none is installed).
The full run takes about seven minutes (idle_http waits out the 60 s idle
timeout, demo_traces_quota parses 600 traces of 200,000 entries); --short
runs the versions the tests run, in seconds. The command exits 1 when
any attack printed held=false (after every line), 2 on bad arguments.`
