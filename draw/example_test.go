package draw_test

import (
	"fmt"

	"github.com/rewindnet/rewind/draw"
)

// A game's view builds a list per frame; the engine encodes it (or reads
// a module's from its memory) and draws it on the page or in the window.
func Example() {
	var l draw.List
	l.Clear(draw.RGB(8, 8, 12))
	l.Palette(1, draw.RGB(222, 190, 112)) // sand
	l.Cells(0, 0, 2, 2, 4, 4, []byte{0, 1, 1, 0})
	l.Circle(40, 40, 6, draw.RGB(255, 80, 80))
	l.Text(52, 44, "0", draw.RGB(255, 255, 255))
	b := l.AppendBinary(nil)

	var got draw.List
	if err := got.UnmarshalBinary(b); err != nil {
		fmt.Println(err)
	}
	fmt.Println(len(b), "bytes,", got.Len(), "commands")
	// Output: 109 bytes, 5 commands
}

// One function per game maps the engine's controls to its input.
func ExampleControls() {
	c := draw.Controls{Keys: draw.Left | draw.Fire, X: 100, Y: 40, Width: 512, Height: 512}
	fmt.Println(c.Axis(draw.Left, draw.Right), c.Axis(draw.Up, draw.Down), c.Has(draw.Fire))
	// Output: -1 0 true
}
