package main

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/testing/simmatch"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// TestDebugDesyncLogAndDiff: the planted map-order bug played with play's
// desync debugger logs "desync tick=… table=avatars row=… field=X ours=…
// server=…" and dumps both worlds; rewind diff on the dumps prints the
// same differences and exits 1, and 0 with nothing on a dump and itself.
func TestDebugDesyncLogAndDiff(t *testing.T) {
	dir := t.TempDir()
	var logs bytes.Buffer
	df := desyncFlags{on: true, dir: dir}
	cfg := simmatch.Config[testgame.Input]{
		Players:  2,
		NewGame:  func() game.Game[testgame.Input] { return &testgame.MapOrder{From: 20} },
		Bot:      testgame.Bot,
		Duration: time.Second,
		Link:     transport.LinkConfig{Latency: 10 * time.Millisecond},
		Seed:     1,
	}
	cfg.Server.Checkpoint = time.Second / 60
	cfg.Client.DebugDesync = df.debugger(slog.New(slog.NewTextHandler(&logs, nil)))
	res, err := simmatch.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Desyncs == 0 {
		t.Fatal("the planted bug did not desync")
	}
	re := regexp.MustCompile(`msg=desync tick=(\d+) table=avatars row=\d+ field=X ours=-?\d+ server=-?\d+`)
	m := re.FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("no desync line naming table avatars and field X in:\n%.2000s", logs.String())
	}
	tick := m[1]
	var logged []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if i := strings.Index(l, "msg=desync tick="+tick+" "); i >= 0 {
			logged = append(logged, strings.TrimPrefix(l[i:], "msg=desync "))
			if len(logged) == 2 {
				break // the first client's two differences
			}
		}
	}
	ours := filepath.Join(dir, "desync-"+tick+"-ours.world")
	server := filepath.Join(dir, "desync-"+tick+"-server.world")
	code, out, stderr := runCmd("diff", ours, server)
	if code != 1 {
		t.Fatalf("rewind diff: exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || lines[0] != logged[0] || lines[1] != logged[1] {
		t.Fatalf("rewind diff printed\n%q\nthe log said\n%q", lines, logged)
	}
	if code, out, stderr := runCmd("diff", ours, ours); code != 0 || out != "" {
		t.Fatalf("rewind diff of a dump and itself: exit %d, %q %q", code, out, stderr)
	}
	if code, _, _ := runCmd("diff", ours); code != 2 {
		t.Fatalf("rewind diff with one file: exit %d", code)
	}
}

// TestDebugDesyncCaps: play --debug-desync logs the first 20 differences
// of a desynced tick (client.MaxDifferences) and says how many there were,
// and writes the worlds of the first 5 desyncs only, each readable by
// rewind diff.
func TestDebugDesyncCaps(t *testing.T) {
	g := &testgame.Game{}
	_, ours, err := game.NewWorld[testgame.Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, server, _ := game.NewWorld[testgame.Input](g, nil)
	// 30 players join on the server's side only: 30 rows absent here, and
	// the table's length and the join counter differ.
	tk := game.Tick[testgame.Input]{Number: 1, Inputs: make([]testgame.Input, game.MaxPlayers), Present: make([]bool, game.MaxPlayers)}
	g.Step(ours, &tk)
	for p := range 30 {
		tk.Events = append(tk.Events, game.Event{Kind: game.Join, Player: game.PlayerID(p)})
		tk.Present[p] = true
	}
	g.Step(server, &tk)
	_, all, err := world.Diff(ours, server, 0)
	if err != nil || all <= client.MaxDifferences {
		t.Fatalf("%d differences (%v): want more than %d", all, err, client.MaxDifferences)
	}
	dir := t.TempDir()
	var logs bytes.Buffer
	df := desyncFlags{on: true, dir: dir}
	hook := df.debugger(slog.New(slog.NewTextHandler(&logs, nil)))
	for tick := uint32(1); tick <= 7; tick++ {
		logs.Reset()
		hook(tick, ours, server)
		if n := strings.Count(logs.String(), "msg=desync tick="+strconv.Itoa(int(tick))+" table="); n != client.MaxDifferences {
			t.Fatalf("tick %d: %d differences logged, want %d:\n%s", tick, n, client.MaxDifferences, logs.String())
		}
		if !strings.Contains(logs.String(), "more differences not logged\" tick="+strconv.Itoa(int(tick))+" differences="+strconv.Itoa(all)) {
			t.Fatalf("tick %d: the count of differences (%d) not logged:\n%s", tick, all, logs.String())
		}
	}
	dumps, _ := filepath.Glob(filepath.Join(dir, "desync-*.world"))
	if len(dumps) != 2*maxDesyncDumps {
		t.Fatalf("%d world dumps, want %d: %v", len(dumps), 2*maxDesyncDumps, dumps)
	}
	code, out, stderr := runCmd("diff", filepath.Join(dir, "desync-5-ours.world"), filepath.Join(dir, "desync-5-server.world"))
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 1 || len(lines) != all {
		t.Fatalf("rewind diff of the dumps: exit %d, %d lines, want %d\n%s", code, len(lines), all, stderr)
	}
}

// TestDiffTrouble: rewind diff exits 2, not 1 (they differ), when a file
// is missing or is neither a world dump nor a replay, or when two replays
// have no tick in common; with nothing on standard output.
func TestDiffTrouble(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	_ = os.WriteFile(junk, []byte("neither a dump nor a replay"), 0o644)
	early, late := filepath.Join(dir, "early.rwreplay"), filepath.Join(dir, "late.rwreplay")
	recordPlayer(t, early, 2*time.Second, 0)            // ticks 1 to 120
	recordPlayer(t, late, 5*time.Second, 3*time.Second) // from about tick 180
	for _, c := range []struct{ a, b, why string }{
		{filepath.Join(dir, "missing"), junk, "no such file"},
		{junk, junk, "junk: "},
		{early, junk, "not a replay file"},
		{early, late, "no tick in common"},
	} {
		code, out, stderr := runCmd("diff", c.a, c.b)
		if code != 2 || out != "" || !strings.Contains(stderr, c.why) {
			t.Errorf("rewind diff %s %s: exit %d, %q, want exit 2 and %q\n%s", filepath.Base(c.a), filepath.Base(c.b), code, out, c.why, stderr)
		}
	}
	if code, out, stderr := runCmd("diff", early, early); code != 0 || out != "" {
		t.Fatalf("rewind diff of a replay and itself: exit %d %q\n%s", code, out, stderr)
	}
}

// recordPlayer writes to path the replay of client 1 of a 2-player sand
// match (grid 32) of d, which client 1 joins at joinAt.
func recordPlayer(t *testing.T, path string, d, joinAt time.Duration) {
	t.Helper()
	r := &replay.Recorder{Game: "sand", Settings: "grid=32 tick-rate=60"}
	r.Open = func(codec.ReplayHeader) (io.Writer, error) { return os.Create(path) }
	cfg := simmatch.Config[sand.Input]{Players: 2, NewGame: func() game.Game[sand.Input] { return sand.New(32) },
		Bot: sand.Bot, Duration: d, Seed: 1, JoinAt: map[int]time.Duration{1: joinAt}}
	cfg.Server.StartPlayers = 1
	cfg.ClientConfig = func(i int, c *client.Config) {
		if i == 1 {
			c.Record = r
		}
	}
	if _, err := simmatch.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
