package world_test

import (
	"fmt"

	"github.com/rewindnet/rewind/world"
)

type Avatar struct {
	ID    uint32
	X, Y  int32
	Alive bool
	_     [3]byte
}

func Example() {
	s := world.NewSchema()
	sand := world.AddGrid[uint8](s, "sand", 256, 256)
	avatars := world.AddTable[Avatar](s, "avatars", 16)
	tick := world.AddValue[uint64](s, "tick")
	rng := world.AddRNG(s, "rng")
	w, err := world.New(s)
	if err != nil {
		panic(err)
	}
	rng.Seed(w, 42)

	sand.Set(w, 10, 0, 1)
	i, _ := avatars.Add(w, Avatar{ID: 7, Alive: true})
	avatars.At(w, i).X += 5

	var snap world.Snapshot
	w.SnapshotInto(&snap)
	before := w.Hash()

	// One tick of play...
	*tick.Ptr(w)++
	avatars.Remove(w, i)
	sand.Set(w, 10, 1, 1)
	_ = rng.IntN(w, 6)

	// ...rolled back.
	if err := w.Restore(&snap); err != nil {
		panic(err)
	}
	fmt.Println(w.Hash() == before, snap.Hash() == before)
	fmt.Println(avatars.Len(w), avatars.Get(w, 0).X, tick.Get(w), sand.Get(w, 10, 1))

	// A second world from the same schema (a client and a server, say).
	w2, _ := world.New(s)
	fmt.Println(w2.Hash() == w.Hash())
	_ = w2.Restore(&snap)
	fmt.Println(w2.Hash() == w.Hash())
	// Output:
	// true true
	// 1 5 0 0
	// false
	// true
}

func ExampleAddTable_error() {
	type Bad struct {
		Pos  [2]int32
		Name string
	}
	s := world.NewSchema()
	world.AddTable[Bad](s, "bad", 10)
	_, err := world.New(s)
	fmt.Println(err)
	// Output:
	// world: registering "bad": world: type is not plain data: world_test.Bad.Name is a string; use a fixed-size byte array
}

// ExampleWorld_AppendWorld sends a whole world to a joining player, then
// repairs a diverged one with only the pages it lacks.
func ExampleWorld_AppendWorld() {
	s := world.NewSchema()
	sand := world.AddGrid[uint8](s, "sand", 256, 256)
	server, _ := world.New(s)
	for x := 0; x < 256; x++ {
		sand.Set(server, x, 255, 4)
	}

	// Join: the whole world, no base.
	joiner, _ := world.New(s)
	enc := server.AppendWorld(nil)
	if err := joiner.DecodeWorld(enc); err != nil {
		panic(err)
	}
	fmt.Println(joiner.Hash() == server.Hash(), len(enc) < 100)

	// Repair: the joiner diverged in one cell; it sends its page hashes and
	// gets back only the differing page.
	sand.Set(joiner, 10, 10, 1)
	theirs := joiner.PageHashes(nil)
	fmt.Println(world.DiffPages(server.PageHashes(nil), theirs, nil))
	enc, _ = server.AppendPages(nil, theirs)
	if err := joiner.ApplyPages(enc); err != nil {
		panic(err)
	}
	fmt.Println(joiner.Hash() == server.Hash())
	// Output:
	// true true
	// [1]
	// true
}
