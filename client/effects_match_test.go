package client_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// fxGame is the test game raising effects: a shot {1, player, aim, tick}
// for every player firing (it depends on inputs other machines guess, so
// predictions of it go wrong), a join {2, player}, and a beat {3} every
// seventh tick (the same whatever the inputs).
type fxGame struct {
	testgame.Game
	raised int // effects raised by Step, counting every resimulation
}

func (g *fxGame) Step(w *world.World, t *game.Tick[testgame.Input]) {
	g.Game.Step(w, t)
	for _, e := range t.Events {
		if e.Kind == game.Join {
			g.emit(t, game.Effect{Kind: 2, Args: [game.EffectArgs]int32{int32(e.Player)}})
		}
	}
	for p, in := range t.Inputs {
		if t.Present[p] && in.Fire {
			g.emit(t, game.Effect{Kind: 1, Args: [game.EffectArgs]int32{int32(p), int32(in.Aim), int32(t.Number)}})
		}
	}
	if t.Number%7 == 0 {
		g.emit(t, game.Effect{Kind: 3})
	}
}

func (g *fxGame) emit(t *game.Tick[testgame.Input], e game.Effect) {
	g.raised++
	t.Emit(e)
}

type fxKey struct {
	tick uint32
	fx   game.Effect
}

// fxView is what a view of one client saw, checked event by event.
type fxView struct {
	t         *testing.T
	name      string
	open      map[fxKey]int // told predicted, not yet cancelled or verified
	verified  map[fxKey]int
	counts    [4]int
	lastVerif uint32
	buf       []client.EffectEvent
}

func (v *fxView) take(events []client.EffectEvent) {
	for _, e := range events {
		k := fxKey{e.Tick, e.Effect}
		v.counts[e.Status]++
		switch e.Status {
		case client.EffectPredicted:
			// Every effect of the test game is unique in its tick: told
			// twice without being taken back is a double fire.
			if v.open[k] > 0 || v.verified[k] > 0 {
				v.t.Errorf("%s: %v of tick %d predicted again while still shown", v.name, e.Effect, e.Tick)
			}
			v.open[k]++
		case client.EffectCancelled, client.EffectVerified:
			if v.open[k] == 0 {
				v.t.Errorf("%s: %v of tick %d %v, never predicted", v.name, e.Effect, e.Tick, e.Status)
				continue
			}
			v.open[k]--
			if e.Status == client.EffectVerified {
				if e.Tick < v.lastVerif {
					v.t.Errorf("%s: tick %d verified after tick %d", v.name, e.Tick, v.lastVerif)
				}
				v.lastVerif = e.Tick
				v.verified[k]++
			}
		default:
			v.t.Errorf("%s: status %v", v.name, e.Status)
		}
	}
}

// fxMatch is a match of fxGame on a simulated network: a server and
// clients playing testgame.Bot, each client with a view of its effects.
type fxMatch struct {
	srv         *server.Server[testgame.Input]
	serverFx    map[fxKey]int // the effects the server raised
	serverTicks uint32        // the last tick the server ran
	clients     []*client.Client[testgame.Input]
	games       []*fxGame
	views       []*fxView
}

// newFxMatch starts a match of players players and ticks ticks on net;
// cfg gives client i's config.
func newFxMatch(t *testing.T, net *transport.SimNetwork, players int, ticks uint32, cfg func(i int) client.Config) *fxMatch {
	t.Helper()
	sconn, err := net.Listen("server")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sconn.Close() })
	m := &fxMatch{
		serverFx: map[fxKey]int{},
		clients:  make([]*client.Client[testgame.Input], players),
		games:    make([]*fxGame, players),
		views:    make([]*fxView, players),
	}
	sg := game.WithEffects[testgame.Input](&fxGame{}, func(tick uint32, fx []game.Effect) {
		m.serverTicks = tick
		for _, e := range fx {
			m.serverFx[fxKey{tick, e}]++
		}
	})
	m.srv, err = server.New(sg, sconn, server.Config{StartPlayers: players, MaxTicks: ticks})
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.clients {
		conn, err := net.Dial(fmt.Sprintf("c%d", i), "server")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		m.games[i] = &fxGame{}
		c, err := client.New[testgame.Input](m.games[i], conn, cfg(i))
		if err != nil {
			t.Fatal(err)
		}
		c.SetInputFunc(func(tick uint32) testgame.Input {
			id, _ := c.Player()
			return testgame.Bot(id, tick)
		})
		m.clients[i] = c
		m.views[i] = &fxView{t: t, name: fmt.Sprintf("client %d", i), open: map[fxKey]int{}, verified: map[fxKey]int{}}
	}
	return m
}

// run advances net, the server and the clients a millisecond at a time
// from start, for at most maxMs milliseconds or until every client
// verified ticks, handing a client's new effects to its view in the
// milliseconds look says to.
func (m *fxMatch) run(t *testing.T, net *transport.SimNetwork, start time.Time, maxMs int, ticks uint32, look func(ms int, c *client.Client[testgame.Input]) bool) {
	t.Helper()
	now := start
	for ms := range maxMs {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		if err := m.srv.Update(now); err != nil {
			t.Fatal(err)
		}
		all := true
		for i, c := range m.clients {
			if err := c.Update(now); err != nil {
				t.Fatalf("client %d: %v", i, err)
			}
			if v := m.views[i]; look(ms, c) {
				v.buf = c.Effects(v.buf[:0])
				v.take(v.buf)
			}
			all = all && c.Stats().Verified == ticks
		}
		if all {
			return
		}
	}
}

// check fails t where client i's view disagrees with the server, past
// its last effects (which it takes): an effect of a verified tick left
// neither verified nor cancelled, an effect verified that the server did
// not raise, or one of a tick the client stepped (stepped says which)
// verified other than as many times as the server raised it; or dropped
// events. It returns how many effects are still open (of ticks predicted
// past the last verified one).
func (m *fxMatch) check(t *testing.T, i int, stepped func(tick uint32) bool) (open int) {
	t.Helper()
	c, v := m.clients[i], m.views[i]
	v.buf = c.Effects(v.buf[:0])
	v.take(v.buf)
	verified := c.Stats().Verified
	for k, n := range v.open {
		if n != 0 && k.tick <= verified {
			t.Errorf("client %d: %v of verified tick %d left neither verified nor cancelled", i, k.fx, k.tick)
		}
		open += n
	}
	for k, n := range m.serverFx {
		if stepped(k.tick) && v.verified[k] != n {
			t.Errorf("client %d: %v of tick %d verified %d times, server raised it %d", i, k.fx, k.tick, v.verified[k], n)
		}
	}
	for k, n := range v.verified {
		if m.serverFx[k] != n {
			t.Errorf("client %d: verified %v of tick %d (%d), which the server did not raise", i, k.fx, k.tick, n)
		}
	}
	if c.EffectsDropped() != 0 {
		t.Errorf("client %d: %d events dropped", i, c.EffectsDropped())
	}
	return open
}

// TestEffectsOverLossyMatch plays four players at 10% loss, 50 ms ±15 ms,
// and checks what each client's view was told about effects: each one
// predicted once per distinct prediction, cancelled when a rollback took
// it back, verified once, and the verified effects of every verified tick
// exactly the server's.
func TestEffectsOverLossyMatch(t *testing.T) {
	const players, ticks = 4, 240
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(42, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.1})
	m := newFxMatch(t, net, players, ticks, func(int) client.Config { return client.Config{} })
	m.run(t, net, start, 8000, ticks, func(int, *client.Client[testgame.Input]) bool { return true })

	if m.serverTicks != ticks {
		t.Fatalf("server ran %d ticks", m.serverTicks)
	}
	var cancelled, rollbacks int
	for i, c := range m.clients {
		st, v := c.Stats(), m.views[i]
		if st.Verified != ticks || st.Desyncs != 0 {
			t.Fatalf("client %d verified up to %d, %d desyncs", i, st.Verified, st.Desyncs)
		}
		open := m.check(t, i, func(uint32) bool { return true })
		if p, c, vf := v.counts[client.EffectPredicted], v.counts[client.EffectCancelled], v.counts[client.EffectVerified]; p != c+vf+open {
			t.Errorf("client %d: %d predicted, %d cancelled + %d verified + %d still open", i, p, c, vf, open)
		}
		// Resimulation raised effects again; the view was not told again.
		if m.games[i].raised <= v.counts[client.EffectPredicted] {
			t.Errorf("client %d: Step raised %d effects, view told of %d: no resimulation exercised", i, m.games[i].raised, v.counts[client.EffectPredicted])
		}
		cancelled += v.counts[client.EffectCancelled]
		rollbacks += int(st.Rollbacks)
		t.Logf("client %d: %d rollbacks, %d effects raised by Step, %d predicted, %d cancelled, %d verified",
			i, st.Rollbacks, m.games[i].raised, v.counts[client.EffectPredicted], v.counts[client.EffectCancelled], v.counts[client.EffectVerified])
	}
	if cancelled == 0 || rollbacks == 0 || len(m.serverFx) == 0 {
		t.Fatalf("the match never took an effect back (%d rollbacks, %d server effects)", rollbacks, len(m.serverFx))
	}
}
