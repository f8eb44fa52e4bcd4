package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/testing/simmatch"
	"github.com/rewindnet/rewind/replay"
)

// sandReplays is a 60 s, 4-player sand match (grid 64, 5% loss) recorded
// by the server, by client 0 and by client 3, which joins 20 s in.
type sandReplays struct {
	dir                 string
	server, early, late string
	wireBytes           uint64
	ticks               uint32
	serverTicks, lateTk uint32
}

func recordSandMatch(t *testing.T) *sandReplays {
	t.Helper()
	r := &sandReplays{dir: t.TempDir()}
	rs, err := simmatch.RecordSand(r.dir, 7)
	if err != nil {
		t.Fatal(err)
	}
	r.server, r.early, r.late = rs.Server, rs.Early, rs.Late
	r.ticks, r.serverTicks, r.lateTk = rs.Result.Ticks, rs.ServerTicks, rs.LateTicks
	r.wireBytes = rs.Result.ServerBytesOut + rs.Result.ClientBytesOut
	return r
}

// TestReplayVerifiesServerAndClients: the server's replay and both
// clients' (the late one's starts from the world it loaded) verify with
// rewind replay; --until-tick stops early; a flipped bit is refused with
// the first bad tick, a cut tail is not verified (exit 1, truncated=true).
func TestReplayVerifiesServerAndClients(t *testing.T) {
	r := recordSandMatch(t)
	if r.serverTicks != r.ticks || r.lateTk == 0 || r.lateTk > r.ticks-20*60+60 {
		t.Fatalf("server recorded %d of %d ticks, the late client %d", r.serverTicks, r.ticks, r.lateTk)
	}
	for _, f := range []string{r.server, r.early, r.late} {
		code, out, stderr := runCmd("replay", f)
		kv := kv(lastLine(out))
		if code != 0 || kv["verified"] != "true" || kv["first_bad_tick"] != "0" || kv["replay_ticks"] == "0" {
			t.Fatalf("rewind replay %s: exit %d, %q\n%s", filepath.Base(f), code, lastLine(out), stderr)
		}
		fi, _ := os.Stat(f)
		t.Logf("%s: %d bytes, %s", filepath.Base(f), fi.Size(), lastLine(out))
	}
	if code, out, _ := runCmd("replay", r.server, "--until-tick", "600"); code != 0 || lastLine(out) != "replay_ticks=600 verified=true first_bad_tick=0 truncated=false" {
		t.Fatalf("--until-tick 600: exit %d, %q", code, lastLine(out))
	}
	b, err := os.ReadFile(r.server)
	if err != nil {
		t.Fatal(err)
	}
	// A bit flipped in the middle: refused from the frame it is in.
	bad := bytes.Clone(b)
	bad[len(b)/2] ^= 0x10
	badPath := filepath.Join(r.dir, "flipped.rwreplay")
	_ = os.WriteFile(badPath, bad, 0o644)
	code, out, _ := runCmd("replay", badPath)
	kvb := kv(lastLine(out))
	if code != 1 || kvb["verified"] != "false" || kvb["first_bad_tick"] == "0" || kvb["first_bad_tick"] == "" {
		t.Fatalf("flipped bit: exit %d, %q", code, lastLine(out))
	}
	// Cut inside the last frame: a crash's tail, not the whole match.
	cutPath := filepath.Join(r.dir, "cut.rwreplay")
	_ = os.WriteFile(cutPath, b[:len(b)-10], 0o644)
	code, out, stderr := runCmd("replay", cutPath)
	kvc := kv(lastLine(out))
	if code != 1 || kvc["verified"] != "false" || kvc["truncated"] != "true" || kvc["replay_ticks"] == "0" {
		t.Fatalf("cut tail: exit %d, %q\n%s", code, lastLine(out), stderr)
	}
	t.Logf("server replay %d bytes for %d ticks (%.0f bytes a minute); the match's wire bytes %d",
		len(b), r.ticks, float64(len(b))*60*60/float64(r.ticks), r.wireBytes)
	if uint64(len(b)) >= r.wireBytes {
		t.Errorf("the replay (%d bytes) is not smaller than the match's wire bytes (%d)", len(b), r.wireBytes)
	}
}

// TestServeAndPlayRecord: serve --record DIR writes a replay of its match
// (its path logged) and play --record FILE one of what the player
// verified; rewind replay verifies both, and rewind diff finds no
// difference between them.
func TestServeAndPlayRecord(t *testing.T) {
	dir := t.TempDir()
	udp, _, stop := startServe(t, "--udp", "127.0.0.1:0", "--grid", "32", "--record", dir, "--status", "0")
	file := filepath.Join(t.TempDir(), "player.rwreplay")
	code, out, stderr := runCmd("play", "--headless", "--connect", udp, "--grid", "32", "--until-tick", "200", "--status", "0", "--record", file)
	if code != 0 {
		t.Fatalf("play: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "msg=recording replay="+file) {
		t.Errorf("play did not log its replay's path:\n%s", stderr)
	}
	stop()
	matches, _ := filepath.Glob(filepath.Join(dir, "match-*.rwreplay"))
	if len(matches) != 1 {
		t.Fatalf("serve --record wrote %v", matches)
	}
	for _, f := range []string{matches[0], file} {
		code, out, stderr := runCmd("replay", f)
		if code != 0 || kv(lastLine(out))["verified"] != "true" {
			t.Fatalf("rewind replay %s: exit %d %q\n%s", f, code, lastLine(out), stderr)
		}
	}
	if code, out, stderr := runCmd("diff", matches[0], file); code != 0 || out != "" {
		t.Fatalf("rewind diff of the server's and the player's replays: exit %d %q %s", code, out, stderr)
	}
}

// TestDiffReplays: two replays of matches whose players moved differently
// diff at the first tick whose worlds differ, field by field; a replay and
// itself do not differ.
func TestDiffReplays(t *testing.T) {
	dir := t.TempDir()
	rec := func(name string, bot func(game.PlayerID, uint32) sand.Input) string {
		path := filepath.Join(dir, name)
		r := &replay.Recorder{Game: "sand", Settings: "grid=32 tick-rate=60"}
		r.Open = func(codec.ReplayHeader) (io.Writer, error) { return os.Create(path) }
		cfg := simmatch.Config[sand.Input]{Players: 2, NewGame: func() game.Game[sand.Input] { return sand.New(32) },
			Bot: bot, Duration: 3 * time.Second, Seed: 1}
		cfg.Server.Record = r
		if _, err := simmatch.Run(cfg); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := rec("a.rwreplay", sand.Bot)
	b := rec("b.rwreplay", func(p game.PlayerID, t uint32) sand.Input {
		if t >= 90 {
			return sand.Bot(p, t+37)
		}
		return sand.Bot(p, t)
	})
	code, out, stderr := runCmd("diff", a, b)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) == 0 || !strings.HasPrefix(lines[0], "tick=") || !strings.Contains(lines[0], " table=") {
		t.Fatalf("rewind diff of two matches: exit %d\n%s\n%s", code, out, stderr)
	}
	tick, _ := strconv.Atoi(strings.TrimPrefix(strings.Fields(lines[0])[0], "tick="))
	if tick < 90 {
		t.Fatalf("first difference at tick %d, before the inputs differ", tick)
	}
	t.Logf("%d differences, first: %s", len(lines), lines[0])
	if code, out, _ := runCmd("diff", a, a); code != 0 || out != "" {
		t.Fatalf("rewind diff of a replay and itself: exit %d %q", code, out)
	}
}

// TestReplayCards: a cards match (private scenes) recorded by the server
// verifies; a player's recording holds only what it saw, so rewind
// replay refuses it with that reason instead of reporting a divergence.
func TestReplayCards(t *testing.T) {
	dir := t.TempDir()
	udp, _, stop := startServe(t, "--game", "cards", "--udp", "127.0.0.1:0", "--players", "2", "--record", dir, "--status", "0")
	files := []string{filepath.Join(t.TempDir(), "p0.rwreplay"), filepath.Join(t.TempDir(), "p1.rwreplay")}
	var wg sync.WaitGroup
	for _, f := range files {
		wg.Go(func() {
			code, out, stderr := runCmd("play", "--game", "cards", "--headless", "--connect", udp, "--until-tick", "150", "--status", "0", "--record", f)
			if code != 0 {
				t.Errorf("play: exit %d\n%s\n%s", code, out, stderr)
			}
		})
	}
	wg.Wait()
	stop()
	if t.Failed() {
		return
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "match-*.rwreplay"))
	if len(matches) != 1 {
		t.Fatalf("serve --record wrote %v", matches)
	}
	code, out, stderr := runCmd("replay", matches[0])
	if m := kv(lastLine(out)); code != 0 || m["verified"] != "true" || m["replay_ticks"] == "0" {
		t.Fatalf("rewind replay of the server's cards replay: exit %d %q\n%s", code, lastLine(out), stderr)
	}
	code, out, stderr = runCmd("replay", files[0])
	if code != 1 || kv(lastLine(out))["verified"] != "false" || !strings.Contains(stderr, "holds only") && !strings.Contains(stderr, "cannot be simulated again") {
		t.Fatalf("rewind replay of a player's cards replay: exit %d %q\n%s", code, lastLine(out), stderr)
	}
}
