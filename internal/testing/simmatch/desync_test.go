package simmatch

import (
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// TestDebugDesyncNamesField plays the planted map-order bug with the
// desync debugger on: each desync's repair brings the server's whole world
// of the tick, and the diff against the client's own names the table
// avatars, two rows (the avatar each machine pushed) and the field X; the
// dumps of both worlds diff the same.
func TestDebugDesyncNamesField(t *testing.T) {
	type report struct {
		tick  uint32
		diffs []world.Difference
		dumps [][]byte
	}
	var reports []report
	cfg := Config[testgame.Input]{
		Players:  3,
		NewGame:  func() game.Game[testgame.Input] { return &testgame.MapOrder{From: 30} },
		Bot:      testgame.Bot,
		Duration: 2 * time.Second,
		Link:     transport.LinkConfig{Latency: 20 * time.Millisecond},
		Seed:     3,
	}
	cfg.Server.Checkpoint = time.Second / 60 // every tick: no replay of the buggy game
	cfg.Client.DebugDesync = func(tick uint32, ours, server *world.World) {
		ds, _, err := world.Diff(ours, server, 20)
		if err != nil {
			t.Errorf("tick %d: %v", tick, err)
		}
		reports = append(reports, report{tick, ds, [][]byte{ours.AppendDump(nil, tick), server.AppendDump(nil, tick)}})
	}
	res := play(t, cfg)
	if res.Desyncs == 0 || len(reports) == 0 {
		t.Fatalf("%d desyncs, %d debugged: the planted bug did not show", res.Desyncs, len(reports))
	}
	for _, r := range reports {
		if r.tick < 30 {
			t.Errorf("desync at tick %d, before the bug acts", r.tick)
		}
		// Each tick both sides push one avatar each, so X's sum is the
		// same on both: when they differ, at least two avatars do, and at
		// most all three (more ticks between a wrong push and its repair).
		if len(r.diffs) < 2 || len(r.diffs) > cfg.Players {
			t.Errorf("tick %d: differences %v, want two or three avatars pushed", r.tick, r.diffs)
		}
		for _, d := range r.diffs {
			if !strings.HasPrefix(d.String(), "table=avatars row=") || d.Field != "X" {
				t.Errorf("tick %d: difference %v, want table avatars field X", r.tick, d)
			}
		}
		a, err := world.ParseDump(r.dumps[0])
		if err != nil {
			t.Fatal(err)
		}
		b, err := world.ParseDump(r.dumps[1])
		if err != nil {
			t.Fatal(err)
		}
		ds, _, err := world.DiffDumps(a, b, 20)
		if err != nil || len(ds) != len(r.diffs) || (len(ds) > 0 && ds[0] != r.diffs[0]) {
			t.Errorf("tick %d: dumps diff %v (%v), worlds %v", r.tick, ds, err, r.diffs)
		}
	}
	t.Logf("%d desyncs, %d debugged; first: tick %d %v", res.Desyncs, len(reports), reports[0].tick, reports[0].diffs)
}
