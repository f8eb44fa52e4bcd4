// Package world holds a game's whole simulation state as plain bytes, so
// that snapshots, restores, hashes and transfers are cheap and exact.
//
// A game declares its state once, in a Schema, as typed tables of plain
// records (growable up to a capacity), fixed 2-D grids, single values and
// random number generators, then builds any number of worlds from it (a
// server keeps one, a client keeps one, tests keep several):
//
//	type Avatar struct {
//		ID   uint32
//		X, Y int32
//		Alive bool
//		_    [3]byte // explicit filler: padding is rejected
//	}
//
//	s := world.NewSchema()
//	sand := world.AddGrid[uint8](s, "sand", 256, 256)
//	avatars := world.AddTable[Avatar](s, "avatars", 16)
//	tick := world.AddValue[uint64](s, "tick")
//	rng := world.AddRNG(s, "rng")
//	w, err := world.New(s) // reports the first registration error
//
//	sand.Set(w, 10, 0, 1)                        // typed access, no allocation
//	i, err := avatars.Add(w, Avatar{ID: 7})      // ErrFull past capacity
//	avatars.At(w, i).X += int32(rng.IntN(w, 3)) // pointer into the world
//	*tick.Ptr(w)++
//
//	var snap world.Snapshot // reusable: keep a ring of them
//	w.SnapshotInto(&snap)   // copies only the bytes in use
//	h := w.Hash()           // == snap.Hash(); xxh3 over bytes in use + layout
//	_ = w.Restore(&snap)    // byte-identical again, lengths included
//
// Plain data means fixed-size ints and uints (int8…int64, uint8…uint64),
// bools, floats, complex numbers, arrays of those and structs of those,
// without padding. Registering anything else (pointer, slice, map, string,
// interface, channel, func, int, uint, uintptr, or a struct with padding)
// is an error wrapping ErrNotPlain that names the type and the field.
//
// Registration order matters: the Layout (where everything lives, the page
// size) is hashed, the layout hash is the first 8 bytes of every world, and
// worlds, snapshots and encodings of different layouts are refused. Run
// the same registration code on every machine.
//
// Invariants: bytes past what is in use (a table's records beyond its
// length) are always zero, also after Remove, Truncate, Restore and any
// decode. Table.Remove swaps the last record into the hole. The world's
// memory is divided into pages (DefaultPageSize 4 KiB; every table and
// grid starts on a page boundary); PageHashes lists a hash per page and
// DiffPages compares two lists.
//
// Transfers. Three encodings carry worlds between machines; each is
// zero-run packed page by page (a page goes as "same as your page N", zero,
// its bytes, or how it differs from the receiver's page or how each row
// differs from the one before), then optionally compressed (SetCompression),
// and each carries the layout hash and the hash of the encoded world, which
// the decoder checks:
//
//	enc := w.AppendWorld(nil)           // whole world, no base
//	err := w2.DecodeWorld(enc)
//
//	enc, err := w.AppendDelta(nil, &base) // against a snapshot both hold
//	err = w2.DecodeDelta(enc, &base)
//
//	theirs := w2.PageHashes(nil)        // repair: the receiver's page hashes
//	enc, err = w.AppendPages(nil, theirs) // pages w2 lacks
//	err = w2.ApplyPages(enc)
//
//	// or: the receiver compares the sender's hashes (World.PageHashes or
//	// Snapshot.PageHashes) with its own and asks for the pages that differ
//	diff := world.DiffPages(w2.PageHashes(nil), senderHashes, nil)
//	enc, err = w.AppendPageList(nil, diff)
//	err = w2.ApplyPages(enc)           // checks the result hashes as w
//
// Scenes. State only some players may see goes into a private scene
// (Schema.AddScene with ScenePrivate; who sees it is a public value the
// game sets in Step: Scene.SetViewers), state no player may see into a
// server-only scene (SceneServer): pass the scene as the last argument of
// AddTable, AddGrid, AddValue or AddRNG. A scene is whole pages;
// World.ViewOf, ViewHash and CopyView give what one player sees
// (docs/scenes.md).
//
// Decoding any bytes whatsoever returns an error (leaving the world as it
// was) or a valid world; allocation is bounded by the layout.
//
// Nothing here reads the clock, starts goroutines or touches the network.
package world
