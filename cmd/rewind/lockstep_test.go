package main

import (
	"strings"
	"sync"
	"testing"
)

// TestPlayLockstep runs `rewind serve` and three players over UDP: one
// `play --lockstep`, one `play --lockstep --input-delay auto` and one
// predicting: all end at tick 120 with the same hash, and the lockstep
// ones with rollbacks=0 and predicted_tick = verified_tick.
func TestPlayLockstep(t *testing.T) {
	checkLeaks(t)
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "32", "--players", "3")
	defer stop()
	args := [][]string{
		{"--lockstep"},
		{"--lockstep", "--input-delay", "auto"},
		{"--input-delay", "1"},
	}
	out := make([]string, len(args))
	var wg sync.WaitGroup
	for i, extra := range args {
		wg.Go(func() {
			a := append([]string{"play", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "120", "--seed", "3"}, extra...)
			code, o, e := runCmd(a...)
			if code != 0 {
				t.Errorf("%q: exit %d\n%s", a, code, e)
			}
			out[i] = lastLine(o)
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	first := kv(out[0])
	for i, line := range out {
		m := kv(line)
		if m["verified_tick"] != "120" || m["verified_hash"] != first["verified_hash"] || m["desyncs"] != "0" {
			t.Errorf("player %d: %q (player 0: %q)", i, line, out[0])
		}
		// A lockstep client never predicts: no rollback, ever. (Its shown
		// tick may be past 120 when several verified ticks arrived in one
		// update under load; that it never runs ahead of the verified tick
		// is checked in made-up time, internal/testing/simmatch.)
		if i < 2 && (m["rollbacks"] != "0" || m["max_rollback"] != "0") {
			t.Errorf("lockstep player %d: %q", i, line)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--headless", "--connect", udp, "--input-delay", "auto"}, "only with --lockstep"},
		{[]string{"play", "--headless", "--connect", udp, "--lockstep", "--input-delay", "61"}, "--input-delay 61: want 0..60 or auto"},
		{[]string{"play", "--headless", "--connect", udp, "--input-delay", "-1"}, "want 0..60 or auto"},
	} {
		code, _, stderr := runCmd(c.args...)
		if last := lastLine(stderr); code != 2 || !strings.Contains(last, c.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", c.args, code, last, c.want)
		}
	}
}
