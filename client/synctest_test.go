package client_test

import (
	"errors"
	"testing"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testgame"
)

func runSyncTest(t *testing.T, g game.Game[testgame.Input], ticks uint32) error {
	t.Helper()
	st, err := client.NewSyncTest[testgame.Input](g, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]testgame.Input, 3)
	for tick := uint32(1); tick <= ticks; tick++ {
		for p := range in {
			in[p] = testgame.Bot(game.PlayerID(p), tick)
		}
		if err := st.Step(in); err != nil {
			return err
		}
	}
	if st.Resimulated == 0 {
		t.Fatal("the sync test never resimulated")
	}
	return nil
}

// TestSyncTestPassesDeterministicGame: the test game steps the same every
// time.
func TestSyncTestPassesDeterministicGame(t *testing.T) {
	if err := runSyncTest(t, &testgame.Game{Bytes: 4096}, 200); err != nil {
		t.Fatal(err)
	}
}

// TestSyncTestCatchesNonDeterminism: a game that keeps a counter outside
// its world steps differently the second time, and the sync test says so
// at the first tick it checks.
func TestSyncTestCatchesNonDeterminism(t *testing.T) {
	err := runSyncTest(t, &testgame.Flaky{}, 200)
	if !errors.Is(err, client.ErrNotDeterministic) {
		t.Fatalf("sync test of a non-deterministic game: %v", err)
	}
	t.Log(err)
}

func TestSyncTestBadArguments(t *testing.T) {
	if _, err := client.NewSyncTest[testgame.Input](&testgame.Game{}, 0, 1); !errors.Is(err, client.ErrConfig) {
		t.Errorf("0 players: %v", err)
	}
	st, err := client.NewSyncTest[testgame.Input](&testgame.Game{}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Step(make([]testgame.Input, 3)); !errors.Is(err, client.ErrConfig) {
		t.Errorf("3 inputs for 2 players: %v", err)
	}
}
