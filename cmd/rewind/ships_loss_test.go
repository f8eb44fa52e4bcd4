package main

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/internal/tools/lossy"
)

// TestShipsThroughLoss is issue 31's real-socket run of the ships game:
// `rewind serve --game ships --udp 127.0.0.1:0 --players 2` and two
// `rewind play --headless --connect ADDR --server-key KEY --game ships
// --input random` players (seeds 1 and 2), each through a lossy UDP
// forwarder (internal/tools/lossy) that drops 10 % of the datagrams each way
// and holds the rest 40 ± 10 ms (30 ms plus 0 to 20), reach tick 1800
// (30 s of play in real time) with one verified hash and no desync. The
// forwarder's counts prove the loss was there. Real time, so not under
// -short; nothing in it is timed (the players' --timeout 30s bounds a
// dead server, not a slow machine).
func TestShipsThroughLoss(t *testing.T) {
	testutil.SkipSockets(t)
	checkLeaks(t)
	addr, key, stop := startServeKey(t, "--game", "ships", "--udp", "127.0.0.1:0", "--players", "2", "--status", "0", "--player-timeout", "30s")
	f, err := lossy.Listen("127.0.0.1:0", addr, lossy.Config{Loss: 0.1, Delay: 30 * time.Millisecond, Jitter: 20 * time.Millisecond, Seed: 31})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	player := func(seed string) []string {
		return []string{"--headless", "--connect", f.Addr().String(), "--server-key", key, "--game", "ships", "--input", "random",
			"--seed", seed, "--until-tick", "1800", "--status", "0", "--timeout", "30s"}
	}
	res := runPlayers(player("1"), player("2"))
	checkSameHash(t, res, "1800")
	for i, r := range res {
		m := kv(lastLine(r.stdout))
		if m["desyncs"] != "0" {
			t.Errorf("player %d: %s desyncs", i, m["desyncs"])
		}
		t.Logf("player %d: %s", i, lastLine(r.stdout))
	}
	st := f.Stats()
	t.Logf("forwarder: up %d (dropped %d), down %d (dropped %d)", st.Up, st.DroppedUp, st.Down, st.DroppedDown)
	for _, d := range []struct {
		name       string
		sent, lost uint64
	}{{"up", st.Up, st.DroppedUp}, {"down", st.Down, st.DroppedDown}} {
		if frac := float64(d.lost) / float64(d.sent+d.lost); d.sent < 1000 || frac < 0.05 || frac > 0.15 {
			t.Errorf("forwarder %s: %d forwarded, %d dropped: not 10 %% loss", d.name, d.sent, d.lost)
		}
	}
	stop()
}
