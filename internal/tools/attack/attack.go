// Package attack is rewind's own attack suite (issue 15): each attack runs
// against real sockets on 127.0.0.1, with a legitimate player or pair
// playing where the attack is on them, and reports whether the defence
// held, with its figures. Tests drive it (short versions), and so does
// `rewind-bench abuse` (one `attack=NAME held=true|false …` line each).
package attack

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
)

// Config scales the attacks. The zero value is the full size of issue 15;
// Short shrinks every count and duration for tests and CI.
type Config struct {
	// Short runs small versions (seconds, not tens of seconds).
	Short bool
	// Log, if set, gets progress lines.
	Log *slog.Logger
	// Plaintext runs the on-path attacks (sniffed_cookie,
	// forged_from_address) against UDP's plaintext framing
	// (udp.Config.Plaintext), as it was before issue 15 sealed
	// it: they break there, which shows they can.
	Plaintext bool
	// Undefended runs the attacks of issue 30 whose defence is a setting
	// with that setting off (no server token, no unused timeout, no
	// per-address caps, desyncs answered at once, seats kept forever):
	// they break there, which shows they can. Tests only.
	Undefended bool
}

func (c Config) log() *slog.Logger {
	if c.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Log
}

// pick returns short in a short run, else full.
func pick[T any](c Config, short, full T) T {
	if c.Short {
		return short
	}
	return full
}

// Result is one attack's outcome.
type Result struct {
	// Name names the attack (a key=value-safe word).
	Name string
	// Held is true when the defence held: the legitimate players were not
	// kept out or disturbed, and what the attacker held stayed bounded.
	Held bool
	// Figures are the attack's measurements, in order.
	Figures []Figure
	// Err is set when the attack could not be run at all.
	Err error
}

// Figure is one named measurement.
type Figure struct {
	Key   string
	Value any
}

func (r *Result) add(key string, v any) { r.Figures = append(r.Figures, Figure{key, v}) }

// Line returns the result as one line of key=value pairs, beginning
// attack=NAME held=true|false.
func (r Result) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "attack=%s held=%t", r.Name, r.Held && r.Err == nil)
	for _, f := range r.Figures {
		v := fmt.Sprint(f.Value)
		if x, ok := f.Value.(float64); ok {
			v = fmt.Sprintf("%.3g", x)
		}
		fmt.Fprintf(&b, " %s=%s", f.Key, strings.ReplaceAll(v, " ", "_"))
	}
	if r.Err != nil {
		fmt.Fprintf(&b, " error=%q", r.Err.Error())
	}
	return b.String()
}

// Attack is one attack of the suite.
type Attack struct {
	Name string
	Run  func(ctx context.Context, cfg Config) Result
}

// All is every attack of the suite, in the order of issue 15, then issue
// 30's, then issue 43's.
var All = []Attack{
	{"unproven_sessions", UnprovenSessions},
	{"room_squatters", RoomSquatters},
	{"code_guessing", CodeGuessing},
	{"demo_traces", DemoTraces},
	{"demo_traces_quota", DemoTracesQuota},
	{"idle_http", IdleHTTP},
	{"refusal_logs", RefusalLogs},
	{"big_frame", BigFrame},
	{"sniffed_cookie", SniffedCookie},
	{"forged_from_address", ForgedFromAddress},
	{"code_guessing_fleet", CodeGuessingFleet},
	{"handshake_flood", HandshakeFlood},
	{"rogue_match_server", RogueMatchServer},
	{"hoarded_slots", HoardedSlots},
	{"json_per_address", JSONPerAddress},
	{"desync_storm", DesyncStorm},
	{"json_refusal_logs", JSONRefusalLogs},
	{"room_caps", RoomCaps},
	{"hostile_text", HostileText},
	{"lobby_idle", LobbyIdle},
	{"redis_killed", RedisKilled},
	{"redis_restarted_empty", RedisRestartedEmpty},
	{"handshake_fresh_flood", HandshakeFreshFlood},
	{"lookup_prefix", LookupPrefix},
	{"console_state_flood", ConsoleStateFlood},
	{"room_key_lurker", RoomKeyLurker},
	{"idle_slot_hoard", IdleSlotHoard},
	{"datachannel_flood", DataChannelFlood},
}

// lineCounter is a slog.Handler counting the records at or above a level.
type lineCounter struct {
	level slog.Level
	n     *atomic.Int64
}

func (h lineCounter) Enabled(_ context.Context, l slog.Level) bool { return true }
func (h lineCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= h.level {
		h.n.Add(1)
	}
	return nil
}
func (h lineCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h lineCounter) WithGroup(string) slog.Handler      { return h }
