package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestBenchFloodCommand runs `rewind-bench flood` small (a match of 2 load
// bots, a second per phase, 2,000 bogus datagrams a second and 200 hellos
// a second from 20 ports, the bots and the flooder in child processes
// that are this test binary re-run as the rewind command): the last line
// has every key, the flood reached the server and was dropped with its
// reasons (random bytes as malformed, frames for no session as
// unknown_session, forged tokens as bad_token, hellos without one
// answered with retries), the match kept playing with both players, and
// the allocation figure is there; one round is never conclusive (so
// never held). The timing figures are the benchmark's business, not this
// test's.
func TestBenchFloodCommand(t *testing.T) {
	testutil.SkipSockets(t)
	checkLeaks(t)
	code, stdout, stderr := runCmd("bench", "flood", "--seconds", "1", "--rate", "2000", "--hello-rate", "200", "--hello-ports", "20",
		"--players", "2", "--bot-procs", "1", "--rounds", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	line := lastLine(stdout)
	m := kv(line)
	for _, k := range []string{"flood_rate", "jitter_p99_quiet_ms", "jitter_p99_control_ms", "jitter_p99_flood_ms", "jitter_rise_ms",
		"jitter_rise_vs_control_ms", "jitter_p50_flood_ms", "dropped_total", "dropped_reasons", "allocs_per_bogus", "us_per_flood_datagram", "load1", "held", "conclusive"} {
		if m[k] == "" {
			t.Errorf("last line lacks %s=: %q", k, line)
		}
	}
	if m["conclusive"] != "false" || m["held"] != "false" {
		t.Errorf("one round: conclusive=%s held=%s, want false (no spread to judge the noise by): %q", m["conclusive"], m["held"], line)
	}
	if m["flood_rate"] != "2000" || m["players_after"] != "2" {
		t.Errorf("flood_rate=%s players_after=%s, want 2000 and 2: %q", m["flood_rate"], m["players_after"], line)
	}
	for _, k := range []string{"bogus_sent", "hellos_sent", "flood_received", "dropped_total", "retries"} {
		if n, err := strconv.ParseFloat(m[k], 64); err != nil || n <= 0 {
			t.Errorf("%s=%s, want a positive count: %q", k, m[k], line)
		}
	}
	for _, r := range []string{"malformed:", "unknown_session:", "bad_token:"} {
		if !strings.Contains(m["dropped_reasons"], r) {
			t.Errorf("dropped_reasons=%s lacks %s", m["dropped_reasons"], r)
		}
	}
	if _, err := strconv.ParseFloat(m["allocs_per_bogus"], 64); err != nil {
		t.Errorf("allocs_per_bogus=%q: %v", m["allocs_per_bogus"], err)
	}
	if !strings.Contains(stderr, "round 1 flood: jitter p99") {
		t.Errorf("no progress line for the flood phase on stderr:\n%s", stderr)
	}
	if code, _, stderr := runCmd("bench", "flood", "--kinds", "random,nonsense"); code != 2 || !strings.Contains(stderr, "--kinds") {
		t.Errorf("--kinds nonsense: exit %d, %q", code, stderr)
	}
}

// TestBenchFloodHandshakeFlags: bench flood takes serve's handshake
// flags for its server, checked as serve checks them (a usage error
// before any child starts).
func TestBenchFloodHandshakeFlags(t *testing.T) {
	for _, flag := range []string{"--handshake-rate", "--handshake-total-rate", "--handshake-burst", "--handshake-total-burst"} {
		code, _, stderr := runCmd("bench", "flood", flag, "0")
		if code != 2 || !strings.Contains(stderr, "--handshake") || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
			t.Errorf("%s 0: exit %d: %s", flag, code, stderr)
		}
	}
}
