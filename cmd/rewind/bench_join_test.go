package main

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestBenchJoin runs a short sand match with a late joiner and checks the
// contract of the last line: the keys outside checks read, a joiner that
// verified, fewer bytes than zstd-fastest of the world.
func TestBenchJoin(t *testing.T) {
	var out, errOut bytes.Buffer
	err := runBenchJoin([]string{"--players", "3", "--seconds", "1", "--grid", "64", "--latency", "30ms",
		"--jitter", "5ms", "--loss", "0.02", "--seed", "2"}, &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	kv := map[string]string{}
	for _, f := range strings.Fields(last) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("not key=value: %q in %q", f, last)
		}
		kv[k] = v
	}
	num := func(k string) int {
		n, err := strconv.Atoi(kv[k])
		if err != nil {
			t.Fatalf("%s=%q in %q", k, kv[k], last)
		}
		return n
	}
	if kv["verified_equal"] != "true" {
		t.Fatalf("last line %q", last)
	}
	if w, j, z, ms := num("world_bytes"), num("join_bytes"), num("zstd_bytes"), num("join_ms"); w <= 0 || j <= 0 || z <= 0 || ms <= 0 || j > w {
		t.Errorf("last line %q", last)
	}
}

func TestBenchJoinBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--players", "0"}, {"--players", "64"}, {"--loss", "1.5"}, {"--grid", "4"},
		{"--latency", "-1ms"}, {"--seconds", "0"}, {"extra"},
	} {
		var out, errOut bytes.Buffer
		err := runBenchJoin(args, &out, &errOut)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
		if out.Len() != 0 {
			t.Errorf("%v: wrote %q", args, out.String())
		}
	}
}
