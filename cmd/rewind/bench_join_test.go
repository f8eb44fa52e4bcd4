package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestBenchJoin runs a short sand match with a late joiner and checks the
// contract of the last line: the keys outside checks read, a joiner that
// verified, fewer bytes than zstd-fastest of the world.
//
// Also at no latency, where the small world comes whole with the welcome
// before any tick after it: the joiner once ran a second ahead then.
func TestBenchJoin(t *testing.T) {
	for _, link := range [][]string{{"--latency", "30ms", "--jitter", "5ms", "--loss", "0.02"}, {}} {
		name := strings.Join(link, " ")
		if name == "" {
			name = "loopback"
		}
		t.Run(name, func(t *testing.T) { benchJoin(t, link) })
	}
}

func benchJoin(t *testing.T, link []string) {
	var out, errOut bytes.Buffer
	args := append([]string{"--players", "3", "--seconds", "1", "--grid", "64", "--seed", "2"}, link...)
	err := runBenchJoin(args, &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	kv, last := lastKeyValues(t, out.String())
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
	// The joiner runs as far ahead as the others, and rolls back as deep.
	lead := func(k string) float64 {
		f, err := strconv.ParseFloat(kv[k], 64)
		if err != nil || f <= 0 {
			t.Fatalf("%s=%q in %q", k, kv[k], last)
		}
		return f
	}
	if jl, l := lead("joiner_lead_ticks"), lead("lead_ticks"); jl > l+3 || jl < l-3 {
		t.Errorf("the joiner leads by %.1f ticks, the others by %.1f", jl, l)
	}
	if jr, r := num("joiner_max_rollback"), num("max_rollback"); jr > r+3 || num("joiner_stalls") != 0 || num("clients_fully_verified") != 4 {
		t.Errorf("last line %q", last)
	}
}

func TestBenchJoinBadFlags(t *testing.T) {
	checkUsageErrors(t, runBenchJoin, [][]string{
		{"--players", "0"}, {"--players", "64"}, {"--loss", "1.5"}, {"--grid", "4"},
		{"--latency", "-1ms"}, {"--seconds", "0"}, {"extra"},
	})
}
