package world

import (
	"math/rand/v2"
	"testing"
)

// FuzzDecodeSceneWorld decodes any bytes into a world with private and
// server scenes (whose table lengths and values live in the scenes' own
// meta pages), seeded with whole-world and page encodings of such worlds
// and of views of them: an error leaves the world as it was, success
// leaves a valid world that hashes as the encoder's.
func FuzzDecodeSceneWorld(f *testing.F) {
	sw, w := newSceneWorld(f)
	r := rand.New(rand.NewPCG(12, 13))
	sw.fill(w, r)
	sw.hand[0].SetViewers(w, 1)
	base := NewFromLayout(w.Layout())
	view := NewFromLayout(w.Layout())
	_ = view.CopyView(w, w.ViewOf(0))
	for _, c := range allCompressions {
		for _, src := range []*World{w, view} {
			src.SetCompression(c)
			f.Add(src.AppendWorld(nil))
			p, _ := src.AppendPages(nil, base.PageHashes(nil))
			f.Add(p)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewFromLayout(w.Layout())
		before := d.Hash()
		if err := d.DecodeWorld(data); err != nil {
			checkDecoded(t, d, before, data, err)
			return
		}
		checkDecoded(t, d, before, data, nil)
		e := NewFromLayout(w.Layout())
		checkDecoded(t, e, e.Hash(), data, e.ApplyPages(data))
	})
}
