package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	benchsoak "github.com/rewindnet/rewind/internal/tools/bench/soak"
)

// TestBenchSoakCommand runs `rewind-bench soak` short (2 matches of 2
// real players, 3 s and 6 s of leaving and rejoining through the lossy
// forwarder, in a network namespace when this test runs as root with
// ip(8), else on 127.0.0.1): the last line has the keys the issue names,
// every rejoin kept its id, no desync, held=true; a namespace made for
// the run is gone after it.
func TestBenchSoakCommand(t *testing.T) {
	testutil.SkipSockets(t)
	checkLeaks(t)
	code, stdout, stderr := runCmd("bench", "soak", "--matches", "2", "--players", "2", "--seconds", "6",
		"--warmup", "3s", "--settle", "1s", "--progress", "2s", "--stay", "700ms,1500ms", "--away", "200ms,600ms")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Log(lastLine(stdout))
	m := kv(lastLine(stdout))
	for _, k := range []string{"matches", "players", "seconds", "desyncs", "rejoins", "rejoin_id_kept", "heap_start_mb",
		"heap_end_mb", "goroutines_start", "goroutines_end", "loss", "path", "held"} {
		if m[k] == "" {
			t.Errorf("last line lacks %s=: %q", k, lastLine(stdout))
		}
	}
	rejoins, _ := strconv.Atoi(m["rejoins"])
	if m["held"] != "true" || m["desyncs"] != "0" || rejoins == 0 || m["rejoin_id_kept"] != m["rejoins"] || m["players"] != "4" {
		t.Errorf("want held=true, no desync, rejoins that all kept their id, 4 players: %q\n%s", lastLine(stdout), stderr)
	}
	if !strings.Contains(stderr, "bench soak: t=") {
		t.Errorf("no progress line on standard error:\n%s", stderr)
	}
	if m["path"] == "netns" {
		out, err := exec.Command("ip", "netns", "list").Output()
		if err != nil {
			t.Fatal(err)
		}
		if prefix := benchsoak.NetnsPrefix + strconv.Itoa(os.Getpid()) + "-"; strings.Contains(string(out), prefix) {
			t.Errorf("the run's namespace is still there:\n%s", out)
		}
	} else if m["path"] != "userspace" {
		t.Errorf("path=%s, want netns or userspace", m["path"])
	}
}

// TestBenchSoakCatchesPlantedFaults runs the soak with a player whose
// game has a determinism bug (testgame.MapOrder: its hashes disagree
// with the server's) and whose first rejoin sends a cookie the server
// never gave: the soak must report the desyncs and the lost id, say
// held=false and fail.
//
// The stays are short and the run long enough for several rejoins per
// player even on a loaded machine (at load 34 one 4 s run with stays of
// up to 1.5 s saw no rejoin carry the planted cookie).
func TestBenchSoakCatchesPlantedFaults(t *testing.T) {
	testutil.SkipSockets(t)
	checkLeaks(t)
	code, stdout, stderr := runCmd("bench", "soak", "--matches", "1", "--players", "2", "--seconds", "6", "--path", "userspace",
		"--warmup", "1s", "--settle", "1s", "--plant", "desync,cookie", "--stay", "500ms,900ms", "--away", "200ms,600ms")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (held=false)\n%s\n%s", code, stdout, stderr)
	}
	m := kv(lastLine(stdout))
	if m["held"] != "false" || m["desyncs"] == "0" || m["rejoin_id_kept"] == m["rejoins"] {
		t.Errorf("want held=false, desyncs and a rejoin that lost its id: %q", lastLine(stdout))
	}
	for _, want := range []string{"desyncs", "lost their id", "desync at tick", "rejoin refused for its cookie"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("standard error lacks %q:\n%s", want, stderr)
		}
	}
}

// TestBenchSoakFlags: bench soak refuses bad flags with one usage line
// (exit 2) before it starts anything.
func TestBenchSoakFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--players", "1"}, "--players 1"},
		{[]string{"--matches", "0"}, "--matches 0"},
		{[]string{"--loss", "1"}, "--loss 1"},
		{[]string{"--path", "tunnel"}, `--path "tunnel"`},
		{[]string{"--plant", "bug"}, `--plant "bug"`},
		{[]string{"--stay", "100ms,1s"}, "--stay 100ms,1s"},
		{[]string{"--away", "2s,1s"}, "MIN <= MAX"},
		{[]string{"--seconds", "0"}, "--seconds"},
	} {
		code, _, stderr := runCmd(append([]string{"bench", "soak"}, c.args...)...)
		if last := lastLine(stderr); code != 2 || !strings.Contains(last, c.want) {
			t.Errorf("%q: exit %d, last stderr line %q; want exit 2 and %q", c.args, code, last, c.want)
		}
	}
}
