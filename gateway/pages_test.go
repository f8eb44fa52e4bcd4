package gateway_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/world"
)

// pagesMsg is a pages message's payload.
type pagesMsg struct {
	SnapshotTick uint32 `json:"snapshotTick"`
	BaseTickID   uint32 `json:"baseTickId"`
	LayoutHash   string `json:"layoutHash"`
	StateHash    string `json:"stateHash"`
	Players      []int  `json:"players"`
	Inputs       []struct {
		PlayerID int           `json:"playerId"`
		Input    walkers.Input `json:"input"`
	} `json:"inputs"`
	Pages []struct {
		Index int    `json:"index"`
		Bytes string `json:"bytes"`
	} `json:"pages"`
}

// hexHashes renders page hashes as a desync's pageHashes.
func hexHashes(hs []uint64) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = fmt.Sprintf("%016x", h)
	}
	return out
}

// repairWithPages sends a desync carrying the page hashes of the client's
// world (after its tick), skips the ticks in flight, and applies the pages
// answer as docs/gateway.md says: each listed page's bytes, zeros to the
// page's end, over the world the hashes were taken of. It checks that the
// answer lists exactly the pages that differ and returns their indexes.
func (c *jsonClient) repairWithPages(ctx context.Context) []int {
	c.t.Helper()
	theirs := c.w.PageHashes(nil)
	at := c.tick
	if err := c.send(ctx, "desync", map[string]any{"tickId": at, "stateHash": "0123456789abcdef", "pageHashes": hexHashes(theirs)}); err != nil {
		c.t.Fatal(err)
	}
	var pm pagesMsg
	for {
		mm, err := c.read(ctx)
		if err != nil {
			c.t.Fatal(err)
		}
		if mm.Type == "pages" {
			if err := jsonUnmarshal(mm.Payload, &pm); err != nil {
				c.t.Fatal(err)
			}
			break
		}
		if mm.Type != "tick" {
			c.t.Fatalf("%s while waiting for pages", mm.Type)
		}
	}
	if pm.BaseTickID != at || pm.SnapshotTick < at {
		c.t.Fatalf("pages at tick %d over base %d, for a desync at %d", pm.SnapshotTick, pm.BaseTickID, at)
	}
	var listed []int
	for _, p := range pm.Pages {
		b, err := base64.StdEncoding.DecodeString(p.Bytes)
		if err != nil || p.Index < 0 || p.Index >= c.w.PageCount() || len(b) > c.w.PageSize() {
			c.t.Fatalf("page %d of %d bytes: %v", p.Index, len(b), err)
		}
		page := c.w.Page(p.Index) // the test writes the world's bytes, as a client in another language would
		clear(page[copy(page, b):])
		listed = append(listed, p.Index)
	}
	if got := fmt.Sprintf("%016x", c.w.Hash()); got != pm.StateHash {
		c.t.Fatalf("after pages %v: world hash %s, stateHash %s", listed, got, pm.StateHash)
	}
	if want := world.DiffPages(theirs, c.w.PageHashes(nil), nil); !slices.Equal(listed, want) {
		c.t.Fatalf("pages %v sent, the pages that differ are %v", listed, want)
	}
	c.tick = pm.SnapshotTick
	clear(c.inputs)
	clear(c.present)
	for _, p := range pm.Players {
		c.present[p] = true
	}
	for _, x := range pm.Inputs {
		c.inputs[x.PlayerID] = x.Input
	}
	return listed
}

// TestDesyncPages: a desync with the client's page hashes is answered
// with exactly the pages that differ (repairWithPages checks it) — when
// the client's world was right (walkers standing still), at most the meta
// page (the tick counter, if the server is past the desync's tick), never
// the walkers' page; when a walker was moved, that page too — which the
// client applies to its world and plays on from, every tick's hash
// checked.
func TestDesyncPages(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 10*time.Second)
	m := newMatch(t, 4, gateway.Config[walkers.Input]{CheckpointEvery: 50 * time.Millisecond})
	ctx := timeout(t, 30*time.Second)
	c := newJSONClient(t, dial(ctx, t, m.url))
	if _, err := c.next(ctx, "initial_state"); err != nil {
		t.Fatal(err)
	}
	c.playTo(ctx, c.init.SnapshotTick+10)
	if got := c.repairWithPages(ctx); len(got) > 1 || slices.Contains(got, 1) {
		t.Errorf("a right world: pages %v sent, want none or [0] (the tick counter's)", got)
	}
	c.playTo(ctx, c.tick+10)
	c.g.Walkers(c.w)[0].X += 3 // a client with a bug
	if got := c.repairWithPages(ctx); !slices.Contains(got, 1) {
		t.Errorf("a walker moved: pages %v sent, want the walkers' page 1 among them", got)
	}
	c.playTo(ctx, c.tick+30)
	if s := m.gw.Stats(); s.Checkpoints != 2 || s.Pages != 2 || s.Initials != 1 {
		t.Fatalf("stats %+v: want 2 checkpoints, both pages, 1 initial_state", s)
	}
}
