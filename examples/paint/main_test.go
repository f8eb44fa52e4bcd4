package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
)

// TestPaint: the example registers itself, and two of its bots, found
// through the registry alone, verify one hash of tick 120 over UDP (at
// 600 Hz: a fifth of a second of play).
func TestPaint(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, 600, 120); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if strings.Count(out.String(), "verified tick 120 hash") != 2 {
		t.Fatal(out.String())
	}
}

// TestPaintSyncTest: the registered game is deterministic under rollback
// (rewind.SyncTest rolls back and resimulates every tick, erased input).
func TestPaintSyncTest(t *testing.T) {
	e, err := games.Lookup("paint")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := e.New(nil)
	st, err := rewind.NewSyncTest(g, 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	bot, _ := e.Bot(games.Random, 9)
	for tick := uint32(1); tick <= 300; tick++ {
		in := make([]games.Input, 4)
		for p := range in {
			in[p] = bot(rewind.PlayerID(p), tick)
		}
		if err := st.Step(in); err != nil {
			t.Fatalf("tick %d: %v", tick, err)
		}
	}
}
