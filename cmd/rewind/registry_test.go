package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
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

// countDraw draws the test-only game: a bar per player slot, as high as
// its counter (mod 100), in the player's colour.
func countDraw(g rewind.Game[countInput], v rewind.View, l *draw.List) {
	c := g.(*countGame)
	l.Clear(draw.Background)
	for p := range rewind.MaxPlayers {
		h := int(*c.score.At(v.Cur, p)) % 100
		l.FillRect(p*10, 0, 8, max(h, -h)+1, draw.PlayerColor(p))
	}
}

// The test-only game is registered as every game is: serve, play,
// replay and the view (its Draw and Control) find it by its name alone.
func init() {
	games.Register(games.Def[countInput]{
		Name:    "testcount",
		Summary: "a test-only counter",
		New:     func(games.Values) (rewind.Game[countInput], error) { return &countGame{}, nil },
		Draw:    countDraw,
		Control: func(_ rewind.Game[countInput], _ rewind.View, c draw.Controls, _ countInput) countInput {
			return countInput{Add: c.Axis(draw.Left, draw.Right)}
		},
		Size: func(rewind.Game[countInput]) (int, int) { return 10 * rewind.MaxPlayers, 100 },
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

// TestRegisteredGameDrawn: the test-only game is drawn and controlled
// through its registry entry, the path the page's Worker and the window
// take (view/seat.FromEntry calls Entry.Draw, Control and Size): the
// controls make its (packed) input, a match stepped with them moves the
// counters, and the draw list shows them.
func TestRegisteredGameDrawn(t *testing.T) {
	e, err := games.Lookup("testcount")
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := rewind.NewSyncTest[games.Input](g, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	var none games.Input
	right := e.Control(g, rewind.View{}, draw.Controls{Keys: draw.Right}, none)
	if left := e.Control(g, rewind.View{}, draw.Controls{Keys: draw.Left}, none); right == none || left == right {
		t.Fatalf("controls make no input: right %x, left %x", right[:4], left[:4])
	}
	for range 5 {
		if err := st.Step([]games.Input{right, right}); err != nil {
			t.Fatal(err)
		}
	}
	if w, h := e.Size(g); w != 10*rewind.MaxPlayers || h != 100 {
		t.Fatalf("size %dx%d", w, h)
	}
	var l draw.List
	e.Draw(g, rewind.View{Prev: st.World(), Cur: st.World(), Width: 100, Height: 100}, &l)
	if l.Len() != 1+rewind.MaxPlayers || l.Command(0).Op != draw.OpClear {
		t.Fatalf("draw list: %d commands, first %v", l.Len(), l.Command(0).Op)
	}
	// Player 0 added 1 × (tick%7+1) on ticks 1..5: 2+3+4+5+6 = 20; a
	// slot no one plays stays 0 (a bar 1 pixel high).
	if h0, h2 := l.Command(1).Args[3], l.Command(3).Args[3]; h0 != 21 || h2 != 1 {
		t.Fatalf("bars %d and %d, want 21 and 1", h0, h2)
	}
}
