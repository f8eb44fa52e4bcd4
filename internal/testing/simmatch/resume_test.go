package simmatch

import (
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// eventGame is the test game recording the events of the ticks it steps.
type eventGame struct {
	testgame.Game
	events []game.Event
	ticks  []uint32
}

func (g *eventGame) Step(w *world.World, t *game.Tick[testgame.Input]) {
	for _, e := range t.Events {
		g.events = append(g.events, e)
		g.ticks = append(g.ticks, t.Number)
	}
	g.Game.Step(w, t)
}

// TestResumeWaitsAndLeaves: a server resumed from a player's handoff
// takes the old server machine's own player out at its first tick, keeps
// a player that does not come back for Resume.Wait (its input repeated)
// and then takes it out, lets the player that comes back in without a
// join event, and refuses a cookie no handover lists.
func TestResumeWaitsAndLeaves(t *testing.T) {
	r := newHandoverRig(t, 3, transport.LinkConfig{Latency: 10 * time.Millisecond})
	r.srv.SetOwnPlayer(0, true)
	r.run(2 * time.Second)
	for i, err := range r.errs {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	ids := map[int]game.PlayerID{}
	for i, c := range r.clients {
		ids[i], _ = c.Player()
	}
	gone, back := -1, -1 // player 0 is the server machine's own
	for i, id := range ids {
		switch {
		case id == 0:
		case back < 0:
			back = i
		default:
			gone = i
		}
	}
	if err := r.srv.Goodbye(codec.ReasonMigrate); err != nil {
		t.Fatal(err)
	}
	r.run(100 * time.Millisecond)
	if !errors.Is(r.errs[back], client.ErrHostLeaving) {
		t.Fatalf("client %d: %v", back, r.errs[back])
	}
	h, ok := r.clients[back].Handoff()
	if !ok || !h.Handover.HasOwn || h.Handover.Own != 0 || len(h.Handover.Players) != 3 {
		t.Fatalf("handoff %+v, %v", h.Handover, ok)
	}

	sconn, err := r.net.Listen("next")
	if err != nil {
		t.Fatal(err)
	}
	g := &eventGame{}
	next, err := server.New[testgame.Input](g, sconn, server.Config{
		Resume: &server.Resume{Tick: h.Tick, World: h.World, Roster: h.Roster, Handover: h.Handover, Wait: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	conn, _ := r.net.Dial("back", "next")
	cb, err := client.New[testgame.Input](&testgame.Game{}, conn, client.Config{Resume: &h})
	if err != nil {
		t.Fatal(err)
	}
	var stranger [16]byte
	_, _ = rand.Read(stranger[:])
	sconn2, _ := r.net.Dial("stranger", "next")
	cs, err := client.New[testgame.Input](&testgame.Game{}, sconn2, client.Config{Cookie: stranger[:]})
	if err != nil {
		t.Fatal(err)
	}
	var strangerErr error
	start := r.now
	for r.now.Sub(start) < 6*time.Second {
		r.now = r.now.Add(time.Millisecond)
		r.net.Advance(r.now)
		if err := next.Update(r.now); err != nil {
			t.Fatal(err)
		}
		if err := cb.Update(r.now); err != nil {
			t.Fatalf("the player back: %v", err)
		}
		if strangerErr == nil {
			strangerErr = cs.Update(r.now)
		}
		if r.now.Sub(start) == 4900*time.Millisecond && (next.Awaiting() != 1 || len(g.events) != 1) {
			t.Fatalf("before Wait: %d awaited, events %v", next.Awaiting(), g.events)
		}
	}
	var refused *client.RefusedError
	if !errors.As(strangerErr, &refused) || refused.Reason != codec.ReasonCookie {
		t.Fatalf("a stranger's cookie: %v", strangerErr)
	}
	if id, _ := cb.Player(); id != ids[back] || !cb.Playing() {
		t.Fatalf("the player back is %d (was %d), playing %v", id, ids[back], cb.Playing())
	}
	// Events: the old host's own player leaves at the first tick, the
	// one that did not come back after Wait; no joins.
	if len(g.events) != 2 || g.events[0] != (game.Event{Kind: game.Leave, Player: 0}) || g.ticks[0] != h.Tick+1 ||
		g.events[1] != (game.Event{Kind: game.Leave, Player: ids[gone]}) {
		t.Fatalf("events %v at ticks %v (resumed after %d)", g.events, g.ticks, h.Tick)
	}
	if wait := time.Duration(g.ticks[1]-h.Tick) * time.Second / 60; wait < 5*time.Second || wait > 5*time.Second+100*time.Millisecond {
		t.Fatalf("the absent player left %v after the resume, want Wait (5 s)", wait)
	}
	if st := next.Stats(); st.Joins != 0 || st.Players != 1 || next.Awaiting() != 0 {
		t.Fatalf("stats %+v, awaiting %d", st, next.Awaiting())
	}
}
