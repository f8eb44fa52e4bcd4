package fleet

import (
	"testing"
	"time"
)

// TestStepPairs: a step's line has the contract's keys in order, the
// raw loop's two only when it was measured, then bot_nice, and
// players_per_core last.
func TestStepPairs(t *testing.T) {
	st := Step{Matches: 10, Players: 40, PlayerTicks: 12000, CPU: 600 * time.Millisecond, Wall: 5 * time.Second,
		UsPerPlayerTick: 50, VsOneMatch: 1.25, PlayersPerCore: 333.3, JitterP99: 1500 * time.Microsecond, Load1: "0.50", Sustained: true,
		BotNice: 10}
	kv := st.Pairs()
	want := []string{"matches", "players", "player_ticks", "server_us_per_player_tick", "vs_one_match", "tick_jitter_p99_ms",
		"late_inputs_per_1000", "rss_mb", "heap_per_match_kb", "server_cpu_pct", "load1", "sustained", "bot_nice", "players_per_core"}
	if len(kv) != 2*len(want) {
		t.Fatalf("pairs %v", kv)
	}
	for i, k := range want {
		if kv[2*i] != k {
			t.Errorf("key %d: %v, want %s", i, kv[2*i], k)
		}
	}
	if kv[9] != "1.25" || kv[11] != "1.50" || kv[19] != "12.0" || kv[25] != 10 || kv[27] != "333" {
		t.Errorf("vs_one_match %v, tick_jitter_p99_ms %v, server_cpu_pct %v, bot_nice %v, players_per_core %v", kv[9], kv[11], kv[19], kv[25], kv[27])
	}
	st.RawUsPerPlayerTick = 40
	kv = st.Pairs()
	if len(kv) != 2*len(want)+4 || kv[len(kv)-6] != "vs_raw" || kv[len(kv)-5] != "1.25" || kv[len(kv)-4] != "bot_nice" {
		t.Errorf("with the raw loop: %v", kv[2*len(want)-6:])
	}
}
