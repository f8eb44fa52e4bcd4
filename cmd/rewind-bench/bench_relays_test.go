package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestBenchRelaysCommand runs `rewind-bench relays` small: 3 relay
// processes (`rewind relay`, built for the test: needRewind) on one
// redis-server, 60 rooms churning for 3 s, the TTL shortened to 3 s. The
// last relay is killed: its rooms leave the directory within the TTL, the
// players it brought to the others' rooms are dropped there, and the
// others' rooms are untouched (held=true).
func TestBenchRelaysCommand(t *testing.T) {
	checkLeaks(t)
	needRewind(t)
	redisURL := testutil.StartRedis(t)
	code, stdout, stderr := runCmd("bench", "relays", "--rooms", "60", "--seconds", "3", "--ttl", "3s", "--workers", "8", "--redis", redisURL)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	m := kv(lastLine(stdout))
	for _, k := range []string{"opened_per_s", "closed_per_s", "join_p50_ms", "join_p99_ms", "killed_rooms_gone_s", "standins_dropped_s", "others_untouched", "load1"} {
		if m[k] == "" {
			t.Errorf("%q lacks %s=", lastLine(stdout), k)
		}
	}
	for _, k := range []string{"opened", "closed", "killed_rooms", "standins", "others"} {
		if n, _ := strconv.Atoi(m[k]); n <= 0 {
			t.Errorf("%s=%s, want some", k, m[k])
		}
	}
	if m["held"] != "true" || m["others_untouched"] != "true" || m["errors"] != "0" {
		t.Errorf("%s\n%s", lastLine(stdout), stderr)
	}
	if code, _, stderr := runCmd("bench", "relays", "--relays", "2"); code != 2 || !strings.Contains(stderr, "--relays 2") {
		t.Errorf("--relays 2: exit %d, %q", code, stderr)
	}
}
