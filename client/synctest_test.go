package client_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/world"
)

func runSyncTest(t *testing.T, g game.Game[testgame.Input], ticks uint32) error {
	t.Helper()
	_, err := runSyncTestST(t, g, ticks)
	return err
}

func runSyncTestST(t *testing.T, g game.Game[testgame.Input], ticks uint32) (*client.SyncTest[testgame.Input], error) {
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
			return st, err
		}
	}
	if st.Resimulated == 0 {
		t.Fatal("the sync test never resimulated")
	}
	if st.FirstDiff != 0 {
		t.Fatalf("FirstDiff %d without an error", st.FirstDiff)
	}
	return st, nil
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
	st, err := runSyncTestST(t, &testgame.Flaky{}, 200)
	if !errors.Is(err, client.ErrNotDeterministic) {
		t.Fatalf("sync test of a non-deterministic game: %v", err)
	}
	if st.FirstDiff != 1 || !strings.Contains(err.Error(), "tick 1 ") {
		t.Fatalf("FirstDiff %d, error %q; want tick 1", st.FirstDiff, err)
	}
	t.Log(err)
}

// leakFrom is the test game with state outside its world that leaks into
// the world only from tick from on: the sync test must name tick from, the
// first tick whose second simulation differs.
type leakFrom struct {
	testgame.Game
	from    uint32
	sum     world.Value[int32]
	outside int32
}

func (g *leakFrom) Register(s *world.Schema) error {
	g.sum = world.AddValue[int32](s, "leak")
	return g.Game.Register(s)
}

func (g *leakFrom) Step(w *world.World, t *game.Tick[testgame.Input]) {
	g.Game.Step(w, t)
	g.outside++
	if t.Number >= g.from {
		*g.sum.Ptr(w) += g.outside
	}
}

// TestSyncTestStateOutsideWorld: state kept outside the world is caught
// through the rollback machine, at the first tick it shows.
func TestSyncTestStateOutsideWorld(t *testing.T) {
	for _, from := range []uint32{1, 30, 101} {
		t.Run(fmt.Sprint(from), func(t *testing.T) {
			st, err := runSyncTestST(t, &leakFrom{from: from}, 200)
			if !errors.Is(err, client.ErrNotDeterministic) {
				t.Fatalf("sync test of a game with state outside its world: %v", err)
			}
			if st.FirstDiff != from || !strings.Contains(err.Error(), fmt.Sprintf("tick %d ", from)) {
				t.Fatalf("FirstDiff %d, error %q; want tick %d", st.FirstDiff, err, from)
			}
		})
	}
}

// mapOrder is the test game whose Step, from tick from on, folds a map's
// entries into the world in the map's iteration order, which Go varies
// from one iteration to the next.
type mapOrder struct {
	testgame.Game
	from uint32
	acc  world.Value[uint64]
	m    map[int]uint64
}

func (g *mapOrder) Register(s *world.Schema) error {
	g.acc = world.AddValue[uint64](s, "acc")
	g.m = make(map[int]uint64)
	for i := range 64 {
		g.m[i] = uint64(i)*0x9E3779B97F4A7C15 + 1
	}
	return g.Game.Register(s)
}

func (g *mapOrder) Step(w *world.World, t *game.Tick[testgame.Input]) {
	g.Game.Step(w, t)
	if t.Number < g.from {
		return
	}
	a := g.acc.Ptr(w)
	for _, v := range g.m {
		*a = *a*31 + v // order-dependent
	}
}

// TestSyncTestMapIterationOrder: a Step that reads a map's iteration order
// is caught, at or after the first tick it does (the order can repeat by
// chance, so the first difference may come a tick or two later; with 64
// entries, rarely).
func TestSyncTestMapIterationOrder(t *testing.T) {
	const from = 40
	st, err := runSyncTestST(t, &mapOrder{from: from}, 200)
	if !errors.Is(err, client.ErrNotDeterministic) {
		t.Fatalf("sync test of a game reading map order: %v", err)
	}
	if st.FirstDiff < from || !strings.Contains(err.Error(), fmt.Sprintf("tick %d ", st.FirstDiff)) {
		t.Fatalf("FirstDiff %d, error %q; want a tick from %d on", st.FirstDiff, err, from)
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

// TestSyncTestNamesFirstDifference: the planted map-order bug is caught,
// and the sync test names the tick, the table, the row and the field.
func TestSyncTestNamesFirstDifference(t *testing.T) {
	st, err := client.NewSyncTest[testgame.Input](&testgame.MapOrder{}, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]testgame.Input, 4)
	for range 500 {
		err = st.Step(in)
		if err != nil {
			break
		}
	}
	if !errors.Is(err, client.ErrNotDeterministic) || st.FirstDiff == 0 {
		t.Fatalf("planted bug not caught in 500 ticks: %v", err)
	}
	if len(st.Differences) < 2 {
		t.Fatalf("differences %v, want the avatar pushed in each simulation", st.Differences)
	}
	for _, d := range st.Differences {
		if d.Table == "avatars" && d.Field == "X" && d.Row >= 0 && d.Row < 4 {
			continue
		}
		t.Errorf("difference %v: want table avatars field X", d)
	}
	t.Log(err)
	first := st.Differences[0].Format("first", "again")
	if !strings.Contains(err.Error(), first) || !strings.HasPrefix(first, "table=avatars row=") {
		t.Fatalf("error %q does not name the first difference %q", err, first)
	}
}

// TestSyncTestRollback: Rollback simulates the last check ticks again and
// leaves the machine where it was: the same tick and, for a deterministic
// game, the same world; a game with state outside its world comes out
// otherwise, so the ticks were stepped again.
func TestSyncTestRollback(t *testing.T) {
	for _, tc := range []struct {
		g    game.Game[testgame.Input]
		same bool
	}{{&testgame.Game{Bytes: 4096}, true}, {&testgame.Flaky{}, false}} {
		st, err := client.NewSyncTest[testgame.Input](tc.g, 3, 7)
		if err != nil {
			t.Fatal(err)
		}
		st.SetChecking(false)
		in := make([]testgame.Input, 3)
		for tick := uint32(1); tick <= 50; tick++ {
			for p := range in {
				in[p] = testgame.Bot(game.PlayerID(p), tick)
			}
			if err := st.Step(in); err != nil {
				t.Fatal(err)
			}
		}
		h := st.World().Hash()
		st.Rollback()
		if st.Tick() != 50 || (st.World().Hash() == h) != tc.same {
			t.Fatalf("%T: after Rollback tick %d, hash %016x (was %016x), want the same world %v", tc.g, st.Tick(), st.World().Hash(), h, tc.same)
		}
	}
}
