package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestBenchMatch runs a short sand match and checks the contract of the
// last line: the keys outside checks read, verified_equal=true.
func TestBenchMatch(t *testing.T) {
	var out, errOut bytes.Buffer
	err := runBenchMatch([]string{"--players", "3", "--seconds", "2", "--grid", "48", "--latency", "30ms",
		"--jitter", "10ms", "--loss", "0.05", "--dup", "0.02", "--reorder", "0.02", "--blackout", "300ms", "--seed", "3"}, &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	kv, last := lastKeyValues(t, out.String())
	for _, k := range []string{"players", "ticks", "desyncs", "resyncs", "max_rollback", "verified_equal", "server_us_per_player_tick", "bytes_per_client_per_s"} {
		if _, ok := kv[k]; !ok {
			t.Errorf("no %s in %q", k, last)
		}
	}
	if kv["verified_equal"] != "true" || kv["players"] != "3" || kv["ticks"] != "120" || kv["desyncs"] != "0" ||
		kv["clients_fully_verified"] != "3" || kv["min_verified_ticks"] != "120" {
		t.Errorf("last line %q", last)
	}
}

// lastKeyValues returns the key=value pairs of out's last line, and the
// line.
func lastKeyValues(t *testing.T, out string) (kv map[string]string, last string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last = lines[len(lines)-1]
	kv = map[string]string{}
	for _, f := range strings.Fields(last) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("not key=value: %q in %q", f, last)
		}
		kv[k] = v
	}
	return kv, last
}

// checkUsageErrors runs a bench command with each of args and expects a
// usage error and nothing on its standard output.
func checkUsageErrors(t *testing.T, run func(args []string, out, errOut io.Writer) error, args [][]string) {
	t.Helper()
	for _, a := range args {
		var out, errOut bytes.Buffer
		err := run(a, &out, &errOut)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("%v: %v, want a usage error", a, err)
		}
		if out.Len() != 0 {
			t.Errorf("%v: wrote %q", a, out.String())
		}
	}
}

func TestBenchMatchBadFlags(t *testing.T) {
	checkUsageErrors(t, runBenchMatch, [][]string{
		{"--players", "0"}, {"--players", "65"}, {"--loss", "1.5"}, {"--grid", "4"},
		{"--latency", "-1ms"}, {"--seconds", "0"}, {"--resend", "some"}, {"extra"},
	})
}
