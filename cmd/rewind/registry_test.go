package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games"
	"github.com/rewindnet/rewind/world"
)

// countInput is the test-only game's input: a step added to the
// player's counter.
type countInput struct {
	Add int8 `rewind:"min=-3,max=3"`
}

// countGame is a test-only game: a counter per player slot.
type countGame struct{ score world.Table[int32] }

func (c *countGame) Register(s *world.Schema) error {
	c.score = world.AddTable[int32](s, "score", rewind.MaxPlayers)
	return s.Err()
}

func (c *countGame) Setup(w *world.World) error {
	for range rewind.MaxPlayers {
		if _, err := c.score.Add(w, 0); err != nil {
			return err
		}
	}
	return nil
}

func (c *countGame) Step(w *world.World, t *rewind.Tick[countInput]) {
	for p, in := range t.Inputs {
		if t.Present[p] {
			*c.score.At(w, p) += int32(in.Add) * int32(t.Number%7+1)
		}
	}
}

// The test-only game is registered as every game is: serve, play and
// replay find it by its name alone.
func init() {
	games.Register(games.Def[countInput]{
		Name:    "testcount",
		Summary: "a test-only counter",
		New:     func(games.Values) (rewind.Game[countInput], error) { return &countGame{}, nil },
		Bot: func(kind string, seed uint64) func(rewind.PlayerID, uint32) countInput {
			return func(me rewind.PlayerID, t uint32) countInput {
				return countInput{Add: int8((uint64(t)+seed+uint64(me))%7) - 3}
			}
		},
	})
}

// TestRegisteredGameServedPlayedReplayed: a game registered in a test
// (no line of the engine or of this command knows it) is served, played
// by two bots to one hash, recorded, and its replay verifies, through the
// paths the built-in games take; --game names it among the registered
// games when another name is unknown.
func TestRegisteredGameServedPlayedReplayed(t *testing.T) {
	checkLeaks(t)
	dir := t.TempDir()
	udp, _, stop := startServe(t, "--game", "testcount", "--udp", "127.0.0.1:0", "--players", "2", "--tick-rate", "300",
		"--status", "0", "--record", dir)
	hashes := make([]string, 2)
	done := make(chan struct{}, 2)
	for i := range hashes {
		go func() {
			defer func() { done <- struct{}{} }()
			c, o, e := runCmd("play", "--game", "testcount", "--tick-rate", "300", "--headless", "--connect", udp,
				"--until-tick", "300", "--status", "0", "--input", []string{"scripted", "random"}[i])
			if c != 0 {
				t.Errorf("player %d: exit %d\n%s", i, c, e)
				return
			}
			hashes[i] = kv(lastLine(o))["verified_hash"]
		}()
	}
	<-done
	<-done
	stop()
	if hashes[0] == "" || hashes[0] != hashes[1] {
		t.Fatalf("the players' hashes at tick 300: %q", hashes)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.rwreplay"))
	if len(files) != 1 {
		t.Fatalf("replays recorded: %v", files)
	}
	c, o, e := runCmd("replay", files[0])
	if c != 0 || kv(lastLine(o))["verified"] != "true" {
		t.Fatalf("replay: exit %d\n%s\n%s", c, o, e)
	}
	if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), "testcount") {
		t.Fatal("the replay's header does not name the game")
	}
	c, _, e = runCmd("play", "--game", "nosuchgame", "--headless", "--connect", udp)
	if c != 2 || !strings.Contains(e, "cards, paint, sand, ships, testcount, walkers") {
		t.Fatalf("--game nosuchgame: exit %d, %q", c, e)
	}
}
