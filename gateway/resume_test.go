package gateway_test

import (
	"context"
	"testing"
	"time"

	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// playTo reads and checks ticks until tick n.
func (c *jsonClient) playTo(ctx context.Context, n uint32) {
	c.t.Helper()
	for c.tick < n {
		if _, err := c.next(ctx, "tick"); err != nil {
			c.t.Fatal(err)
		}
	}
}

// reconnect drops c's socket, waits d, and connects again with a resume
// from the last tick c applied (its world stays).
func (c *jsonClient) reconnect(ctx context.Context, url string, d time.Duration) {
	c.t.Helper()
	_ = c.ws.CloseNow()
	time.Sleep(d) // real time passes: the match goes on without the socket
	c.ws = dial(ctx, c.t, url)
	if err := c.send(ctx, "resume", map[string]any{"resumeToken": c.init.ResumeToken, "lastTickId": c.tick}); err != nil {
		c.t.Fatal(err)
	}
}

// TestResume: a client that reconnects within the history gets every tick
// after its last one and keeps its slot; past the history it gets a fresh
// initial_state in the same slot.
func TestResume(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	m := newMatch(t, 4, gateway.Config[walkers.Input]{History: 2 * time.Second})
	ctx := timeout(t, 30*time.Second)
	c := newJSONClient(t, dial(ctx, t, m.url))
	if _, err := c.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	if err := c.goTo(ctx, 10, 10); err != nil {
		t.Fatal(err)
	}
	c.playTo(ctx, c.init.SnapshotTick+30)
	first := c.init

	c.reconnect(ctx, m.url, 200*time.Millisecond)
	mm, err := c.read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if mm.Type != "tick" {
		t.Fatalf("after a resume within the history: %s, want the next tick", mm.Type)
	}
	if err := c.apply(mm); err != nil {
		t.Fatal(err)
	}
	c.playTo(ctx, c.tick+20)
	if s := m.gw.Stats(); s.Resumes != 1 || s.Initials != 1 {
		t.Fatalf("stats %+v", s)
	}

	c.reconnect(ctx, m.url, 3*time.Second) // past the 2 s history
	if _, err := c.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	if c.init.PlayerID != first.PlayerID || c.init.ResumeToken != first.ResumeToken {
		t.Fatalf("after a resume past the history: player %d, want %d (same token)", c.init.PlayerID, first.PlayerID)
	}
	c.playTo(ctx, c.tick+20)
	ws := c.g.Walkers(c.w)
	if len(ws) != 1 || ws[0].TX != 1000 {
		t.Fatalf("walkers %+v: want the one walker, its destination kept", ws)
	}
	if s := m.gw.Stats(); s.Resumes != 2 || s.Initials != 2 {
		t.Fatalf("stats %+v", s)
	}
}

// TestResumeExpired: past the rejoin window the slot is gone; the resume
// is refused and the connection plays in a new slot.
func TestResumeExpired(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	m := newMatch(t, 4, gateway.Config[walkers.Input]{RejoinWindow: 200 * time.Millisecond})
	ctx := timeout(t, 30*time.Second)
	keep := newJSONClient(t, dial(ctx, t, m.url)) // keeps the match going
	if _, err := keep.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	c := newJSONClient(t, dial(ctx, t, m.url))
	if _, err := c.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	old := c.init.ResumeToken
	c.reconnect(ctx, m.url, time.Second)
	if code := c.expectError(ctx); code != gateway.CodeInvalidInput {
		t.Fatalf("expired resume: %s", code)
	}
	if _, err := c.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	if c.init.ResumeToken == old {
		t.Fatal("a new slot with the old token")
	}
}

// TestDesync: a client that reports a hash mismatch gets a checkpoint (a
// fresh initial_state at a completed tick) and ticks from there.
func TestDesync(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	m := newMatch(t, 4, gateway.Config[walkers.Input]{})
	ctx := timeout(t, 30*time.Second)
	c := newJSONClient(t, dial(ctx, t, m.url))
	if _, err := c.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	if err := c.goTo(ctx, -5, 7.5); err != nil {
		t.Fatal(err)
	}
	c.playTo(ctx, c.init.SnapshotTick+20)
	// Break our world, as a client with a bug would.
	c.g.Walkers(c.w)[0].X += 3
	at := c.tick
	if err := c.send(ctx, "desync", map[string]any{"tickId": at, "stateHash": "0123456789abcdef"}); err != nil {
		t.Fatal(err)
	}
	for {
		mm, err := c.read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if mm.Type == "initial_state" {
			if err := c.apply(mm); err != nil {
				t.Fatal(err)
			}
			break
		}
		// Ticks in flight: applied without the hash check (our world is
		// broken on purpose).
		var tk tickMsg
		_ = jsonUnmarshal(mm.Payload, &tk)
		c.tick = tk.TickID
	}
	if c.init.SnapshotTick < at {
		t.Fatalf("checkpoint at tick %d, before the desync at %d", c.init.SnapshotTick, at)
	}
	c.playTo(ctx, c.tick+30)
	if s := m.gw.Stats(); s.Checkpoints != 1 || s.Initials != 2 {
		t.Fatalf("stats %+v", s)
	}
}
