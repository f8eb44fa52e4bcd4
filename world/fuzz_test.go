package world

import (
	"math/rand/v2"
	"testing"
)

// fuzzSetup returns a schema, a base world and encodings of a target
// world (whole, delta against the base, pages against the base) in every
// compression, to seed the fuzzers.
func fuzzSetup(f *testing.F) (tw *testWorld, base *World, baseSnap *Snapshot, seeds [][]byte) {
	tw = newTestSchema(f, 512)
	r := rand.New(rand.NewPCG(9, 9))
	base = tw.new(f)
	tw.mutate(base, r, 300)
	baseSnap = base.Snapshot()
	target := tw.new(f)
	_ = target.CopyFrom(base)
	tw.mutate(target, r, 40)
	theirs := base.PageHashes(nil)
	for _, c := range allCompressions {
		target.SetCompression(c)
		seeds = append(seeds, target.AppendWorld(nil))
		d, _ := target.AppendDelta(nil, baseSnap)
		seeds = append(seeds, d)
		p, _ := target.AppendPages(nil, theirs)
		seeds = append(seeds, p)
		l, _ := target.AppendPageList(nil, DiffPages(theirs, target.PageHashes(nil), nil))
		seeds = append(seeds, l)
	}
	for _, s := range seeds {
		f.Add(s)
	}
	return tw, base, baseSnap, seeds
}

// checkDecoded verifies the outcome of a decode: on error the world is as
// before; on success it is valid and hashes to the encoder's hash.
func checkDecoded(t *testing.T, w *World, before uint64, data []byte, err error) {
	if err != nil {
		if w.Hash() != before {
			t.Fatalf("failed decode (%v) changed the world", err)
		}
		return
	}
	checkZeroTail(t, w)
	info, ierr := ReadEncodingInfo(data)
	if ierr != nil || w.Hash() != info.TargetHash {
		t.Fatalf("decoded world hash %x, header says %x (%v)", w.Hash(), info.TargetHash, ierr)
	}
}

func FuzzDecodeWorld(f *testing.F) {
	tw, _, _, _ := fuzzSetup(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		w := tw.new(t)
		before := w.Hash()
		checkDecoded(t, w, before, data, w.DecodeWorld(data))
	})
}

func FuzzDecodeDelta(f *testing.F) {
	tw, _, baseSnap, _ := fuzzSetup(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		w := tw.new(t)
		tw.sand.Set(w, 1, 1, 1)
		before := w.Hash()
		checkDecoded(t, w, before, data, w.DecodeDelta(data, baseSnap))
	})
}

func FuzzApplyPages(f *testing.F) {
	tw, base, _, _ := fuzzSetup(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		w := tw.new(t)
		_ = w.CopyFrom(base)
		before := w.Hash()
		checkDecoded(t, w, before, data, w.ApplyPages(data))
	})
}
