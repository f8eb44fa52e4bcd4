package client_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testgame"
	"github.com/rewindnet/rewind/server"
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
	sconn, err := net.Listen("server")
	if err != nil {
		t.Fatal(err)
	}
	defer sconn.Close()
	serverFx := map[fxKey]int{}
	sg := game.WithEffects[testgame.Input](&fxGame{}, func(tick uint32, fx []game.Effect) {
		for _, e := range fx {
			serverFx[fxKey{tick, e}]++
		}
	})
	srv, err := server.New(sg, sconn, server.Config{StartPlayers: players, MaxTicks: ticks})
	if err != nil {
		t.Fatal(err)
	}
	clients := make([]*client.Client[testgame.Input], players)
	views := make([]*fxView, players)
	verifiedTicks := make([]map[uint32]bool, players)
	for i := range clients {
		conn, err := net.Dial(fmt.Sprintf("c%d", i), "server")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		vt := map[uint32]bool{}
		verifiedTicks[i] = vt
		c, err := client.New[testgame.Input](&fxGame{}, conn, client.Config{OnVerified: func(tick uint32, _ uint64) { vt[tick] = true }})
		if err != nil {
			t.Fatal(err)
		}
		c.SetInputFunc(func(tick uint32) testgame.Input {
			id, _ := c.Player()
			return testgame.Bot(id, tick)
		})
		clients[i] = c
		views[i] = &fxView{t: t, name: fmt.Sprintf("client %d", i), open: map[fxKey]int{}, verified: map[fxKey]int{}}
	}
	net.Blackout("c0", start.Add(2*time.Second), start.Add(6500*time.Millisecond))
	now := start
	for ms := range 20000 {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		if err := srv.Update(now); err != nil {
			t.Fatal(err)
		}
		all := true
		for i, c := range clients {
			if err := c.Update(now); err != nil {
				t.Fatalf("client %d: %v", i, err)
			}
			if v := views[i]; ms%16 == 0 && !c.Loading() {
				v.buf = c.Effects(v.buf[:0])
				v.take(v.buf)
			}
			all = all && c.Stats().Verified == ticks
		}
		if all {
			break
		}
	}
	if st := clients[0].Stats(); st.Rebases == 0 {
		t.Fatalf("client 0 was not rebased: %+v", st)
	}
	for i, c := range clients {
		v := views[i]
		v.buf = c.Effects(v.buf[:0])
		v.take(v.buf)
		st := c.Stats()
		if st.Verified != ticks || st.Desyncs != 0 {
			t.Fatalf("client %d verified up to %d, %d desyncs", i, st.Verified, st.Desyncs)
		}
		for k, n := range v.open {
			if n != 0 && k.tick <= st.Verified {
				t.Errorf("client %d: %v of tick %d left neither verified nor cancelled", i, k.fx, k.tick)
			}
		}
		for k, n := range serverFx {
			// The tick whose world came from the server (after a gap)
			// was not stepped here: its effects are not the client's.
			stepped := verifiedTicks[i][k.tick] && (k.tick == 1 || verifiedTicks[i][k.tick-1])
			if stepped && v.verified[k] != n {
				t.Errorf("client %d: %v of tick %d verified %d times, server raised it %d", i, k.fx, k.tick, v.verified[k], n)
			}
		}
		for k, n := range v.verified {
			if serverFx[k] != n {
				t.Errorf("client %d: verified %v of tick %d (%d), which the server did not raise", i, k.fx, k.tick, n)
			}
		}
		if c.EffectsDropped() != 0 {
			t.Errorf("client %d: %d events dropped", i, c.EffectsDropped())
		}
		t.Logf("client %d: %d ticks verified, %d rebases; view told %d predicted, %d cancelled, %d verified",
			i, len(verifiedTicks[i]), st.Rebases, v.counts[client.EffectPredicted], v.counts[client.EffectCancelled], v.counts[client.EffectVerified])
	}
	if len(verifiedTicks[0]) >= ticks-60 {
		t.Fatalf("client 0 verified %d of %d ticks: the rebase skipped none", len(verifiedTicks[0]), ticks)
	}
}
