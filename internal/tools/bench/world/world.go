// Package world is `rewind-bench world`: snapshot, hash and paged-delta
// measurements of package world against memcpy, xxh3, zstd and s2 (see
// docs/benchmarks.md, World, for what each figure means).
package world

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/zeebo/xxh3"

	"github.com/rewindnet/rewind/internal/tools/worldsim"
	"github.com/rewindnet/rewind/internal/zstdfast"
	rwworld "github.com/rewindnet/rewind/world"
)

// Config is what bench world measures.
type Config struct {
	// MinTime is the minimum time of each timed comparison.
	MinTime time.Duration
	// Seconds is how much sand play (60 ticks a second) comes before
	// the whole-world encoding.
	Seconds int
	// Log gets the progress lines (nil: none).
	Log io.Writer
}

// Result is what bench world measured.
type Result struct {
	// SnapshotVsMemcpy, HashVsXXH3 and RestoreVsMemcpy are the times of
	// a copy of as many bytes, of xxh3 over them and again of a copy,
	// over the times of the sand world's snapshot, hash and restore.
	SnapshotVsMemcpy, HashVsXXH3, RestoreVsMemcpy float64
	// Snapshot, Hash and PageHashes are the times per call.
	Snapshot, Hash, PageHashes time.Duration
	// Snapshot1PctVsFull is a 1%-full table's snapshot time over a full one's.
	Snapshot1PctVsFull float64
	// Sand and Table are the deltas after one tick of pouring sand and of
	// moving 1,000 entities.
	Sand, Table Delta
	// Whole is the whole sand world's encoding after the run.
	Whole Whole
	// Pages are the figures at 4 KiB and 16 KiB pages.
	Pages [2]PageFigures
}

// Delta is one paged delta's size against the XOR of the two worlds
// compressed.
type Delta struct {
	// Bytes is the paged delta; XorZstd and XorS2 the XOR compressed.
	Bytes, XorZstd, XorS2 int
}

// Whole is the whole-world encoding of the sand world.
type Whole struct {
	// Bytes is the encoding (automatic compression); Raw, Zstd and S2 the
	// raw bytes in use and their zstd and s2 compression; Packed,
	// PackedS2 and PackedZstd the encoding with each compression forced.
	Bytes, Raw, Zstd, S2, Packed, PackedS2, PackedZstd int
	// Encode and Decode are the times of one encoding and decoding.
	Encode, Decode time.Duration
}

// PageFigures are the encodings of the sand and entity worlds with one
// page size.
type PageFigures struct {
	// PageSize is the page size in bytes.
	PageSize int
	// SandDelta, TableDelta and World are encoding sizes; Repair is the
	// pages that repair a one-cell divergence; HashList the page-hash list.
	SandDelta, TableDelta, World, Repair, HashList int
}

// Pairs returns the command's key=value pairs, in the order of its line.
func (r Result) Pairs() []any {
	f := func(x float64) string { return fmt.Sprintf("%.3f", x) }
	kv := []any{
		"snapshot_vs_memcpy", f(r.SnapshotVsMemcpy),
		"hash_vs_xxh3", f(r.HashVsXXH3),
		"restore_vs_memcpy", f(r.RestoreVsMemcpy),
		"snapshot_ns", r.Snapshot.Nanoseconds(), "hash_ns", r.Hash.Nanoseconds(),
		"page_hashes_ns", r.PageHashes.Nanoseconds(),
		"snapshot_1pct_vs_full", f(r.Snapshot1PctVsFull),
		"delta_vs_zstd", f(ratio2(r.Sand.Bytes, r.Sand.XorZstd)), "delta_vs_s2", f(ratio2(r.Sand.Bytes, r.Sand.XorS2)),
		"sand_delta_bytes", r.Sand.Bytes, "sand_xor_zstd_bytes", r.Sand.XorZstd,
		"delta_vs_zstd_table", f(ratio2(r.Table.Bytes, r.Table.XorZstd)), "delta_vs_s2_table", f(ratio2(r.Table.Bytes, r.Table.XorS2)),
		"table_delta_bytes", r.Table.Bytes, "table_xor_zstd_bytes", r.Table.XorZstd,
		"world_vs_zstd", f(ratio2(r.Whole.Bytes, r.Whole.Zstd)),
		"world_bytes", r.Whole.Bytes, "world_raw_bytes", r.Whole.Raw,
		"world_zstd_bytes", r.Whole.Zstd, "world_s2_bytes", r.Whole.S2,
		"world_packed_bytes", r.Whole.Packed, "world_packed_s2_bytes", r.Whole.PackedS2,
		"world_packed_zstd_bytes", r.Whole.PackedZstd,
		"world_encode_us", r.Whole.Encode.Microseconds(), "world_decode_us", r.Whole.Decode.Microseconds(),
	}
	for _, p := range r.Pages {
		k := fmt.Sprintf("p%dk_", p.PageSize/1024)
		kv = append(kv, k+"sand_delta_bytes", p.SandDelta, k+"table_delta_bytes", p.TableDelta,
			k+"world_bytes", p.World, k+"repair_bytes", p.Repair, k+"page_hash_list_bytes", p.HashList)
	}
	return kv
}

// run is one run's state.
type run struct {
	cfg  Config
	m    *meter
	res  Result
	sand *worldsim.Sand
	w    *rwworld.World
	mid  rwworld.Snapshot // the sand world halfway through the run
}

func (r *run) logf(format string, a ...any) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, "bench world: "+format+"\n", a...)
	}
}

// Run measures package world; it stops between measurements when ctx ends.
func Run(ctx context.Context, cfg Config) (Result, error) {
	r := &run{cfg: cfg, m: &meter{min: cfg.MinTime}}
	for _, step := range []func() error{r.play, r.timeSand, r.timeTables, r.deltas, r.whole, r.pageSizes} {
		if err := ctx.Err(); err != nil {
			return r.res, err
		}
		if err := step(); err != nil {
			return r.res, err
		}
	}
	return r.res, nil
}

// play makes the sand world after the requested seconds of pouring.
func (r *run) play() error {
	r.logf("simulating %d s of sand (%d ticks)", r.cfg.Seconds, r.cfg.Seconds*60)
	r.sand = worldsim.NewSand(0)
	w, err := rwworld.New(r.sand.Schema)
	if err != nil {
		return err
	}
	if err := r.sand.Setup(w, 1); err != nil {
		return err
	}
	ticks := r.cfg.Seconds * 60
	for t := 0; t < ticks; t++ {
		if t == ticks/2 {
			w.SnapshotInto(&r.mid)
		}
		r.sand.Step(w)
	}
	r.w = w
	return nil
}

// timeSand times snapshot, restore and hash against a copy of the same
// number of bytes.
func (r *run) timeSand() error {
	w, m := r.w, r.m
	r.logf("timing snapshot, restore and hash of the sand world (%d bytes in use)", w.UsedBytes())
	n := w.UsedBytes()
	var snap rwworld.Snapshot
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
	r.res.PageHashes = m.time(func() { hs = w.PageHashes(hs) })
	r.res.SnapshotVsMemcpy, r.res.HashVsXXH3, r.res.RestoreVsMemcpy = ratio(tCopy, tSnap), ratio(tXXH, tHash), ratio(tCopy2, tRestore)
	r.res.Snapshot, r.res.Hash = tSnap, tHash
	return nil
}

// timeTables times the snapshots of a table 1% full and full.
func (r *run) timeTables() error {
	const capN = 100000
	r.logf("timing snapshots of a %d-entity table at 1%% and 100%%", capN)
	ents := worldsim.NewEntities(capN, 0)
	small, err := rwworld.New(ents.Schema)
	if err != nil {
		return err
	}
	full, _ := rwworld.New(ents.Schema)
	if err := ents.Fill(small, capN/100, 1); err != nil {
		return err
	}
	if err := ents.Fill(full, capN, 1); err != nil {
		return err
	}
	var snap rwworld.Snapshot
	p := r.m.pair(func() { small.SnapshotInto(&snap) }, func() { full.SnapshotInto(&snap) })
	r.res.Snapshot1PctVsFull = ratio(p[0], p[1])
	return nil
}

// deltas encodes the sand delta after one tick of pouring (from the
// middle of the run) and the entity table's after one tick of movement.
func (r *run) deltas() error {
	r.logf("encoding sand and entity deltas")
	dw, _ := rwworld.New(r.sand.Schema)
	if err := dw.Restore(&r.mid); err != nil {
		return err
	}
	var base rwworld.Snapshot
	dw.SnapshotInto(&base)
	r.sand.Step(dw)
	var err error
	if r.res.Sand, err = deltaSizes(dw, &base); err != nil {
		return err
	}
	e1k := worldsim.NewEntities(1000, 0)
	ew, _ := rwworld.New(e1k.Schema)
	if err := e1k.Fill(ew, 1000, 2); err != nil {
		return err
	}
	for range 10 {
		e1k.Step(ew)
	}
	ew.SnapshotInto(&base)
	e1k.Step(ew)
	r.res.Table, err = deltaSizes(ew, &base)
	return err
}

// whole encodes the whole sand world after the full run, against zstd
// and s2 of its raw bytes.
func (r *run) whole() error {
	r.logf("encoding the whole sand world")
	w := r.w
	rawWorld := snapshotBytes(w)
	wh := Whole{Raw: len(rawWorld), Zstd: len(zstdfast.Append(nil, rawWorld)), S2: len(s2.Encode(nil, rawWorld))}
	var enc []byte
	sizes := map[rwworld.Compression]int{}
	for _, c := range []rwworld.Compression{rwworld.CompressAuto, rwworld.CompressNone, rwworld.CompressS2, rwworld.CompressZstd} {
		w.SetCompression(c)
		enc = w.AppendWorld(enc[:0])
		sizes[c] = len(enc)
	}
	wh.Bytes, wh.Packed, wh.PackedS2, wh.PackedZstd = sizes[rwworld.CompressAuto], sizes[rwworld.CompressNone], sizes[rwworld.CompressS2], sizes[rwworld.CompressZstd]
	w.SetCompression(rwworld.CompressAuto)
	enc = w.AppendWorld(enc[:0])
	wh.Encode = r.m.time(func() { enc = w.AppendWorld(enc[:0]) })
	got, _ := rwworld.New(r.sand.Schema)
	var err error
	wh.Decode = r.m.time(func() {
		if err = got.DecodeWorld(enc); err != nil {
			panic(err)
		}
	})
	if got.Hash() != w.Hash() {
		return fmt.Errorf("whole-world round trip: hash mismatch")
	}
	r.res.Whole = wh
	return nil
}

// pageSizes makes the same measurements at 4 KiB and 16 KiB pages, plus
// the repair of a one-cell divergence and the size of a page-hash list.
func (r *run) pageSizes() error {
	r.logf("comparing page sizes")
	for i, ps := range []int{4096, 16384} {
		p, err := pageSizeFigures(ps, r.cfg.Seconds*60)
		if err != nil {
			return err
		}
		r.res.Pages[i] = p
	}
	return nil
}

// pageSizeFigures measures encodings of the sand and entity worlds with
// pages of ps bytes.
func pageSizeFigures(ps, ticks int) (PageFigures, error) {
	r := PageFigures{PageSize: ps}
	sand := worldsim.NewSand(ps)
	w, err := rwworld.New(sand.Schema)
	if err != nil {
		return r, err
	}
	if err := sand.Setup(w, 1); err != nil {
		return r, err
	}
	for range ticks / 2 {
		sand.Step(w)
	}
	var base rwworld.Snapshot
	w.SnapshotInto(&base)
	sand.Step(w)
	enc, err := w.AppendDelta(nil, &base)
	if err != nil {
		return r, err
	}
	r.SandDelta = len(enc)
	for range ticks - ticks/2 - 1 {
		sand.Step(w)
	}
	r.World = len(w.AppendWorld(nil))
	// Repair: the receiver differs in one cell.
	other, _ := rwworld.New(sand.Schema)
	if err := other.CopyFrom(w); err != nil {
		return r, err
	}
	sand.Grid.Set(other, 100, 100, sand.Grid.Get(other, 100, 100)^7)
	theirs := other.PageHashes(nil)
	r.HashList = 8 * len(theirs)
	enc, err = w.AppendPages(nil, theirs)
	if err != nil {
		return r, err
	}
	if err := other.ApplyPages(enc); err != nil || other.Hash() != w.Hash() {
		return r, fmt.Errorf("repair round trip failed: %v", err)
	}
	r.Repair = len(enc)

	ents := worldsim.NewEntities(1000, ps)
	ew, _ := rwworld.New(ents.Schema)
	if err := ents.Fill(ew, 1000, 2); err != nil {
		return r, err
	}
	for range 10 {
		ents.Step(ew)
	}
	ew.SnapshotInto(&base)
	ents.Step(ew)
	enc, err = ew.AppendDelta(nil, &base)
	r.TableDelta = len(enc)
	return r, err
}

// deltaSizes returns the paged-delta bytes of w against base and the zstd
// and s2 bytes of the XOR of w's and base's bytes in use.
func deltaSizes(w *rwworld.World, base *rwworld.Snapshot) (Delta, error) {
	enc, err := w.AppendDelta(nil, base)
	if err != nil {
		return Delta{}, err
	}
	chk, _ := rwworld.NewFromLayout(w.Layout()), 0
	if err := chk.DecodeDelta(enc, base); err != nil || chk.Hash() != w.Hash() {
		return Delta{}, fmt.Errorf("delta round trip failed: %v", err)
	}
	bw := rwworld.NewFromLayout(w.Layout())
	if err := bw.Restore(base); err != nil {
		return Delta{}, err
	}
	a, b := snapshotBytes(w), snapshotBytes(bw)
	x := make([]byte, max(len(a), len(b)))
	copy(x, a)
	for i := range b {
		x[i] ^= b[i]
	}
	return Delta{len(enc), len(zstdfast.Append(nil, x)), len(s2.Encode(nil, x))}, nil
}

func snapshotBytes(w *rwworld.World) []byte {
	var s rwworld.Snapshot
	w.SnapshotInto(&s)
	return s.AppendBytes(nil)
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }
func ratio2(a, b int) float64          { return float64(a) / float64(b) }

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
