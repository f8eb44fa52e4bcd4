package module

import (
	"testing"

	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/game"
	"github.com/zeebo/xxh3"
)

// viewHashes is each example's draw list (AppendBinary) for player 1 at
// 640×480, alpha 500, after 300 ticks of examplePlay, and its input for
// the keys Right|Fire, as one xxh3 hash: the same natively and in
// js/wasm.
var viewHashes = map[string]uint64{
	"c/coins.wasm":              0xea26241c6f9fd7e7,
	"rust/puck.wasm":            0xc87f2ba8a76c94c8,
	"assemblyscript/dodge.wasm": 0x0b360d93012c5be7,
}

// TestViewTwin: a module's view exports, called through Game.Draw and
// Game.Control on a world, draw a list (a clear and more), give an input
// for the keys, leave the world as it was (they run on a copy), and
// agree with the golden hash natively and in js/wasm.
func TestViewTwin(t *testing.T) {
	for file, want := range viewHashes {
		g, w := examplePlay(t, file, 300)
		before := w.Hash()
		var l draw.List
		v := game.View{Cur: w, Prev: w, Alpha: 0.5, Me: 1, Width: ViewWidth, Height: ViewHeight}
		g.Draw(v, &l)
		in := g.Control(v, draw.Controls{Keys: draw.Right | draw.Fire, Width: ViewWidth, Height: ViewHeight}, Input{})
		if w.Hash() != before {
			t.Errorf("%s: the view changed the world", file)
		}
		if l.Len() < 2 || l.Command(0).Op != draw.OpClear {
			t.Errorf("%s: draw list of %d commands", file, l.Len())
		}
		if in == (Input{}) {
			t.Errorf("%s: no input for Right|Fire", file)
		}
		b := l.AppendBinary(nil)
		ib := in.Bytes()
		got := xxh3.Hash(append(b, ib[:]...))
		if got != want {
			t.Errorf("%s: view hash %#x, want %#x", file, got, want)
		}
	}
}
