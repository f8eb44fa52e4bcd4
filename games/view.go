package games

import (
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/draw"
)

// Viewer is a game value that draws itself and maps the engine's
// controls to its input: a Def whose Draw, Control or Size is nil uses
// its game's methods when the game is a Viewer (the built-in games'
// view.go).
type Viewer[I any] interface {
	// Draw draws what v shows into l.
	Draw(v rewind.View, l *draw.List)
	// Control returns the input of controls c, prev being the input the
	// player sent last.
	Control(v rewind.View, c draw.Controls, prev I) I
	// Size returns the canvas the game would like, in pixels.
	Size() (w, h int)
}

// DefaultWidth and DefaultHeight are the canvas of a game that names
// none (no Size, and not a Viewer).
const (
	DefaultWidth  = 512
	DefaultHeight = 512
)

// view sets e's Draw, Control, Size and Sound of d's (or of the game's
// Viewer methods), each erased: the game unerased to d's, its input
// unpacked and packed.
func view[I any](e *Entry, d Def[I], it *inputs.Type[I]) {
	own := func(g Game) (rewind.Game[I], Viewer[I]) {
		in, _ := Unerase(g).(rewind.Game[I])
		gv, _ := in.(Viewer[I])
		return in, gv
	}
	e.Sound, e.Help = d.Sound, d.Help
	e.Draw = func(g Game, v rewind.View, l *draw.List) {
		in, gv := own(g)
		switch {
		case d.Draw != nil && in != nil:
			d.Draw(in, v, l)
		case gv != nil:
			gv.Draw(v, l)
		}
	}
	e.Control = func(g Game, v rewind.View, c draw.Controls, prev Input) Input {
		in, gv := own(g)
		if in == nil || (d.Control == nil && gv == nil) {
			return prev
		}
		var p I
		it.Unpack(prev[:], &p)
		if d.Control != nil {
			p = d.Control(in, v, c, p)
		} else {
			p = gv.Control(v, c, p)
		}
		var out Input
		it.Pack(out[:], &p)
		return out
	}
	e.Size = func(g Game) (int, int) {
		in, gv := own(g)
		switch {
		case d.Size != nil && in != nil:
			return d.Size(in)
		case gv != nil:
			return gv.Size()
		}
		return DefaultWidth, DefaultHeight
	}
}
