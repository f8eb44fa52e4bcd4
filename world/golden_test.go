package world

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestGoldenHashes pins the layout hash, the world hash, the page hashes
// and the RNG sequence of a fixed world. Every machine that plays together
// must compute these same numbers (run it natively, with GOARCH=arm64, and
// as js/wasm: GOOS=js GOARCH=wasm go test -run Golden ./world); a change
// here is a change of the wire and determinism contract.
func TestGoldenHashes(t *testing.T) {
	tw := newTestSchema(t, 0)
	w := tw.new(t)
	tw.rng.Seed(w, 2026)
	tw.mutate(w, rand.New(rand.NewPCG(42, 42)), 1000)
	var rng [4]uint64
	for i := range rng {
		rng[i] = tw.rng.Uint64(w)
	}
	pages := w.PageHashes(nil)
	var ph uint64
	for _, h := range pages {
		ph = ph*31 + h
	}
	got := fmt.Sprintf("layout=%016x world=%016x pages=%d/%016x rng=%016x,%016x",
		w.Layout().Hash(), w.Hash(), len(pages), ph, rng[0], rng[3])
	const want = "layout=9f7e313f84ab57c1 world=d72b46acd3657ef3 pages=7/2d008ffe6542334c rng=bf723a3ccdb3ff65,43e9b6452d9c77ea"
	if got != want {
		t.Fatalf("golden hashes changed:\n got %s\nwant %s", got, want)
	}
}
