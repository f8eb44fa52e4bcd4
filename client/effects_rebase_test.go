package client_test

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// TestEffectsThroughARebase: one of three players is blacked out for
// 4.5 s, longer than the server keeps ticks, and is moved to the world of
// a newer tick (a rebase), which puts a new rollback machine in place of
// its old one. Its view, which draws a frame every 16 ms and none while
// the world loads, must still be told the end of every effect it was told
// of: the predictions made before the blackout for ticks the rebase
// skipped are cancelled, none is left open for a verified tick, and the
// events queued before the rebase and not yet read are not lost. Every
// effect of a tick the client stepped and verified is the server's (the
// tick the server's world was taken at raised none here).
func TestEffectsThroughARebase(t *testing.T) {
	const players, ticks = 3, 600
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(7, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02})
	verifiedTicks := make([]map[uint32]bool, players)
	m := newFxMatch(t, net, players, ticks, func(i int) client.Config {
		vt := map[uint32]bool{}
		verifiedTicks[i] = vt
		return client.Config{OnVerified: func(tick uint32, _ uint64) { vt[tick] = true }}
	})
	net.Blackout("c0", start.Add(2*time.Second), start.Add(6500*time.Millisecond))
	m.run(t, net, start, 20000, ticks, func(ms int, c *client.Client[testgame.Input]) bool { return ms%16 == 0 && !c.Loading() })
	if st := m.clients[0].Stats(); st.Rebases == 0 {
		t.Fatalf("client 0 was not rebased: %+v", st)
	}
	for i, c := range m.clients {
		st := c.Stats()
		if st.Verified != ticks || st.Desyncs != 0 {
			t.Fatalf("client %d verified up to %d, %d desyncs", i, st.Verified, st.Desyncs)
		}
		// The tick whose world came from the server (after a gap) was
		// not stepped here: its effects are not the client's.
		vt := verifiedTicks[i]
		m.check(t, i, func(tick uint32) bool { return vt[tick] && (tick == 1 || vt[tick-1]) })
		v := m.views[i]
		t.Logf("client %d: %d ticks verified, %d rebases; view told %d predicted, %d cancelled, %d verified",
			i, len(vt), st.Rebases, v.counts[client.EffectPredicted], v.counts[client.EffectCancelled], v.counts[client.EffectVerified])
	}
	if len(verifiedTicks[0]) >= ticks-60 {
		t.Fatalf("client 0 verified %d of %d ticks: the rebase skipped none", len(verifiedTicks[0]), ticks)
	}
}
