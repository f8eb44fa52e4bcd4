package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestBenchFleetCommand runs `rewind-bench fleet` small (1 and 2 matches
// of 2 load bots, in two bot processes that are this test binary re-run
// as the rewind command (TestMain), and the raw loop): every step's line has the
// keys the command contract names (and bot_nice, the bots' niceness:
// 10 unless told), the bots all joined, and the last line
// is the 2-match step, whose CPU profile --cpuprofile wrote. The figures themselves are the benchmark's
// business, not this test's.
func TestBenchFleetCommand(t *testing.T) {
	testutil.SkipSockets(t)
	checkLeaks(t)
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	code, stdout, stderr := runCmd("bench", "fleet", "--matches", "2", "--players", "2", "--seconds", "0.5", "--bot-procs", "2", "--cpuprofile", prof)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Errorf("--cpuprofile: %v, %v", fi, err)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a line per step (1, 2): %q", stdout)
	}
	for i, l := range lines {
		m := kv(l)
		for _, k := range []string{"matches", "server_us_per_player_tick", "vs_one_match", "tick_jitter_p99_ms", "rss_mb"} {
			if m[k] == "" {
				t.Errorf("line %d %q lacks %s=", i, l, k)
			}
		}
		if m["bot_nice"] != "10" || m["players_per_core"] == "" {
			t.Errorf("line %d %q: want bot_nice=10 (the default) and players_per_core=", i, l)
		}
		if want := []string{"2", "4"}[i]; m["players"] != want {
			t.Errorf("line %d: players=%s, want %s", i, m["players"], want)
		}
	}
	if m := kv(lines[1]); m["matches"] != "2" || m["vs_raw"] == "" {
		t.Errorf("last line %q: want matches=2 and vs_raw=", lines[1])
	}
	if code, _, stderr := runCmd("bench", "fleet", "--matches", "0"); code != 2 || !strings.Contains(stderr, "--matches 0") {
		t.Errorf("--matches 0: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCmd("bench", "fleet", "--bot-nice", "20"); code != 2 || !strings.Contains(stderr, "--bot-nice 20") {
		t.Errorf("--bot-nice 20: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCmd("bench", "fleet", "--bot-cpus", "x"); code != 2 || !strings.Contains(stderr, "--bot-cpus") {
		t.Errorf("--bot-cpus x: exit %d, %q", code, stderr)
	}
}
