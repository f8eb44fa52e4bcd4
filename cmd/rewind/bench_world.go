package main

import (
	"fmt"
	"io"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/zeebo/xxh3"

	"github.com/rewindnet/rewind/internal/worldsim"
	"github.com/rewindnet/rewind/internal/zstdfast"
	"github.com/rewindnet/rewind/world"
)

func init() {
	registerBench("world", "snapshot, hash and paged-delta benchmarks of package world", runBenchWorld)
}

// runBenchWorld measures package world against memcpy, xxh3 and zstd; see
// docs/benchmarks.md (World) for what each figure means.
func runBenchWorld(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench world", "rewind bench world [flags]", stderr)
	minTime := fs.Duration("time", 300*time.Millisecond, "minimum time per timed comparison")
	seconds := fs.Int("seconds", 30, "seconds of sand play (60 ticks each) before the whole-world encoding")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "bench world: "+format+"\n", a...) }
	m := &meter{min: *minTime}
	var kv []any

	// The sand world after the requested seconds of pouring.
	logf("simulating %d s of sand (%d ticks)", *seconds, *seconds*60)
	sand := worldsim.NewSand(0)
	w, err := world.New(sand.Schema)
	if err != nil {
		return err
	}
	if err := sand.Setup(w, 1); err != nil {
		return err
	}
	ticks := *seconds * 60
	var mid world.Snapshot
	for t := 0; t < ticks; t++ {
		if t == ticks/2 {
			w.SnapshotInto(&mid)
		}
		sand.Step(w)
	}

	// Snapshot vs copy of the same number of bytes.
	logf("timing snapshot, restore and hash of the sand world (%d bytes in use)", w.UsedBytes())
	n := w.UsedBytes()
	var snap world.Snapshot
	src, dst := make([]byte, n), make([]byte, n)
	w.SnapshotInto(&snap)
	p := m.pair(func() { copy(dst, src) }, func() { w.SnapshotInto(&snap) })
	tCopy, tSnap := p[0], p[1]
	p = m.pair(func() { copy(dst, src) }, func() { _ = w.Restore(&snap) })
	tCopy2, tRestore := p[0], p[1]
	raw := make([]byte, n)
	p = m.pair(func() { _ = xxh3.Hash(raw) }, func() { _ = w.Hash() })
	tXXH, tHash := p[0], p[1]
	var hs []uint64
	tPageHashes := m.time(func() { hs = w.PageHashes(hs) })
	kv = append(kv,
		"snapshot_vs_memcpy", ratio(tCopy, tSnap),
		"hash_vs_xxh3", ratio(tXXH, tHash),
		"restore_vs_memcpy", ratio(tCopy2, tRestore),
		"snapshot_ns", tSnap.Nanoseconds(), "hash_ns", tHash.Nanoseconds(),
		"page_hashes_ns", tPageHashes.Nanoseconds(),
	)

	// 1% full vs full.
	const capN = 100000
	logf("timing snapshots of a %d-entity table at 1%% and 100%%", capN)
	ents := worldsim.NewEntities(capN, 0)
	small, err := world.New(ents.Schema)
	if err != nil {
		return err
	}
	full, _ := world.New(ents.Schema)
	if err := ents.Fill(small, capN/100, 1); err != nil {
		return err
	}
	if err := ents.Fill(full, capN, 1); err != nil {
		return err
	}
	p = m.pair(func() { small.SnapshotInto(&snap) }, func() { full.SnapshotInto(&snap) })
	tSmall, tFull := p[0], p[1]
	kv = append(kv, "snapshot_1pct_vs_full", ratio(tSmall, tFull))

	// Sand delta after one tick of pouring (from the middle of the run).
	logf("encoding sand and entity deltas")
	dw, _ := world.New(sand.Schema)
	if err := dw.Restore(&mid); err != nil {
		return err
	}
	var base world.Snapshot
	dw.SnapshotInto(&base)
	sand.Step(dw)
	sandDelta, zs, ss, err := deltaSizes(dw, &base)
	if err != nil {
		return err
	}
	kv = append(kv, "delta_vs_zstd", ratio2(sandDelta, zs), "delta_vs_s2", ratio2(sandDelta, ss),
		"sand_delta_bytes", sandDelta, "sand_xor_zstd_bytes", zs)

	// Entity table delta after one tick of movement.
	e1k := worldsim.NewEntities(1000, 0)
	ew, _ := world.New(e1k.Schema)
	if err := e1k.Fill(ew, 1000, 2); err != nil {
		return err
	}
	for range 10 {
		e1k.Step(ew)
	}
	ew.SnapshotInto(&base)
	e1k.Step(ew)
	tabDelta, tzs, tss, err := deltaSizes(ew, &base)
	if err != nil {
		return err
	}
	kv = append(kv, "delta_vs_zstd_table", ratio2(tabDelta, tzs), "delta_vs_s2_table", ratio2(tabDelta, tss),
		"table_delta_bytes", tabDelta, "table_xor_zstd_bytes", tzs)

	// Whole world after the full run vs zstd of its raw bytes.
	logf("encoding the whole sand world")
	w.SnapshotInto(&snap)
	rawWorld := snapshotBytes(w)
	zWorld := len(zstdfast.Append(nil, rawWorld))
	sWorld := len(s2.Encode(nil, rawWorld))
	var enc []byte
	sizes := map[world.Compression]int{}
	for _, c := range []world.Compression{world.CompressAuto, world.CompressNone, world.CompressS2, world.CompressZstd} {
		w.SetCompression(c)
		enc = w.AppendWorld(enc[:0])
		sizes[c] = len(enc)
	}
	w.SetCompression(world.CompressAuto)
	enc = w.AppendWorld(enc[:0])
	tEncode := m.time(func() { enc = w.AppendWorld(enc[:0]) })
	got, _ := world.New(sand.Schema)
	tDecode := m.time(func() {
		if err = got.DecodeWorld(enc); err != nil {
			panic(err)
		}
	})
	if got.Hash() != w.Hash() {
		return fmt.Errorf("whole-world round trip: hash mismatch")
	}
	kv = append(kv, "world_vs_zstd", ratio2(sizes[world.CompressAuto], zWorld),
		"world_bytes", sizes[world.CompressAuto], "world_raw_bytes", len(rawWorld),
		"world_zstd_bytes", zWorld, "world_s2_bytes", sWorld,
		"world_packed_bytes", sizes[world.CompressNone], "world_packed_s2_bytes", sizes[world.CompressS2],
		"world_packed_zstd_bytes", sizes[world.CompressZstd],
		"world_encode_us", tEncode.Microseconds(), "world_decode_us", tDecode.Microseconds())

	// Page size: the same measurements at 4 KiB and 16 KiB pages, plus the
	// repair of a one-cell divergence and the size of a page-hash list.
	logf("comparing page sizes")
	for _, ps := range []int{4096, 16384} {
		r, err := pageSizeFigures(ps, *seconds*60)
		if err != nil {
			return err
		}
		k := fmt.Sprintf("p%dk_", ps/1024)
		kv = append(kv, k+"sand_delta_bytes", r.sandDelta, k+"table_delta_bytes", r.tableDelta,
			k+"world_bytes", r.world, k+"repair_bytes", r.repair, k+"page_hash_list_bytes", r.hashList)
	}

	keyValues(stdout, kv...)
	return nil
}

type pageFigures struct{ sandDelta, tableDelta, world, repair, hashList int }

// pageSizeFigures measures encodings of the sand and entity worlds with
// pages of ps bytes.
func pageSizeFigures(ps, ticks int) (pageFigures, error) {
	var r pageFigures
	sand := worldsim.NewSand(ps)
	w, err := world.New(sand.Schema)
	if err != nil {
		return r, err
	}
	if err := sand.Setup(w, 1); err != nil {
		return r, err
	}
	for range ticks / 2 {
		sand.Step(w)
	}
	var base world.Snapshot
	w.SnapshotInto(&base)
	sand.Step(w)
	enc, err := w.AppendDelta(nil, &base)
	if err != nil {
		return r, err
	}
	r.sandDelta = len(enc)
	for range ticks - ticks/2 - 1 {
		sand.Step(w)
	}
	r.world = len(w.AppendWorld(nil))
	// Repair: the receiver differs in one cell.
	other, _ := world.New(sand.Schema)
	if err := other.CopyFrom(w); err != nil {
		return r, err
	}
	sand.Grid.Set(other, 100, 100, sand.Grid.Get(other, 100, 100)^7)
	theirs := other.PageHashes(nil)
	r.hashList = 8 * len(theirs)
	enc, err = w.AppendPages(nil, theirs)
	if err != nil {
		return r, err
	}
	if err := other.ApplyPages(enc); err != nil || other.Hash() != w.Hash() {
		return r, fmt.Errorf("repair round trip failed: %v", err)
	}
	r.repair = len(enc)

	ents := worldsim.NewEntities(1000, ps)
	ew, _ := world.New(ents.Schema)
	if err := ents.Fill(ew, 1000, 2); err != nil {
		return r, err
	}
	for range 10 {
		ents.Step(ew)
	}
	ew.SnapshotInto(&base)
	ents.Step(ew)
	enc, err = ew.AppendDelta(nil, &base)
	r.tableDelta = len(enc)
	return r, err
}

// deltaSizes returns the paged-delta bytes of w against base and the zstd
// and s2 bytes of the XOR of w's and base's bytes in use.
func deltaSizes(w *world.World, base *world.Snapshot) (delta, zstdXor, s2Xor int, err error) {
	enc, err := w.AppendDelta(nil, base)
	if err != nil {
		return 0, 0, 0, err
	}
	chk, _ := world.NewFromLayout(w.Layout()), 0
	if err := chk.DecodeDelta(enc, base); err != nil || chk.Hash() != w.Hash() {
		return 0, 0, 0, fmt.Errorf("delta round trip failed: %v", err)
	}
	bw := world.NewFromLayout(w.Layout())
	if err := bw.Restore(base); err != nil {
		return 0, 0, 0, err
	}
	a, b := snapshotBytes(w), snapshotBytes(bw)
	x := make([]byte, max(len(a), len(b)))
	copy(x, a)
	for i := range b {
		x[i] ^= b[i]
	}
	return len(enc), len(zstdfast.Append(nil, x)), len(s2.Encode(nil, x)), nil
}

func snapshotBytes(w *world.World) []byte {
	var s world.Snapshot
	w.SnapshotInto(&s)
	return s.AppendBytes(nil)
}

func ratio(a, b time.Duration) string { return fmt.Sprintf("%.3f", float64(a)/float64(b)) }
func ratio2(a, b int) string          { return fmt.Sprintf("%.3f", float64(a)/float64(b)) }

// meter times functions on a shared, noisy machine: each measurement is
// the fastest of many short batches, and functions compared in a ratio
// are measured in alternating batches so that both see the same load.
type meter struct{ min time.Duration }

// time returns f's time per call.
func (m *meter) time(f func()) time.Duration { return m.pair(f, nil)[0] }

// pair returns the times per call of f and g (g may be nil), measured in
// alternating batches.
func (m *meter) pair(f, g func()) [2]time.Duration {
	fs := []func(){f, g}
	iters := [2]int{}
	for i, fn := range fs {
		if fn == nil {
			continue
		}
		fn()
		n := 1
		for {
			start := time.Now()
			for range n {
				fn()
			}
			if time.Since(start) >= 2*time.Millisecond || n > 1<<24 {
				break
			}
			n *= 2
		}
		iters[i] = n
	}
	best := [2]time.Duration{1 << 62, 1 << 62}
	deadline := time.Now().Add(m.min)
	for round := 0; round < 10 || time.Now().Before(deadline); round++ {
		for i, fn := range fs {
			if fn == nil {
				continue
			}
			start := time.Now()
			for range iters[i] {
				fn()
			}
			best[i] = min(best[i], time.Since(start)/time.Duration(iters[i]))
		}
	}
	return best
}
