package main

import (
	"testing"
)

func TestBenchJoinBadFlags(t *testing.T) {
	checkUsageErrors(t, runBenchJoin, [][]string{
		{"--players", "0"}, {"--players", "64"}, {"--loss", "1.5"}, {"--grid", "4"},
		{"--latency", "-1ms"}, {"--seconds", "0"}, {"extra"},
	})
}
