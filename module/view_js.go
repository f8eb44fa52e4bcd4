//go:build js

package module

import (
	"fmt"
	"syscall/js"

	"github.com/rewindnet/rewind/world"
)

// viewCall calls the view export name with args on a copy of cur (an
// instance of the game's own for its views, cur's bytes and globals
// copied into it) and returns the module's memory after it (copied out)
// and the address the export returned.
func (g *Game) viewCall(cur *world.World, name string, args ...int32) ([]byte, uint32, bool) {
	in := g.viewIn
	if in == nil || in.err != nil || in.view() > g.mem.Len(cur) {
		in = g.newInstance() // a memory cannot shrink
		g.viewIn = in
	}
	if in.err != nil {
		return nil, 0, false
	}
	if ip, wp := in.view(), g.mem.Len(cur); ip < wp {
		if _, err := jsTry(func() js.Value { return in.mem.Call("grow", wp-ip) }); err != nil {
			in.err = fmt.Errorf("grow: %v", err)
			return nil, 0, false
		}
		in.view()
	}
	js.CopyBytesToJS(in.u8, g.region(cur))
	for i, gl := range in.globals {
		gl.Set("value", g.toJS(i, g.glob.Cells(cur)[i]))
	}
	a := make([]any, len(args))
	for i, x := range args {
		a[i] = x
	}
	r, err := jsTry(func() js.Value { return in.call(name, a...) })
	if err != nil {
		in.err = err
		return nil, 0, false
	}
	n := in.view() * wasmPage
	if cap(g.viewMem) < n {
		g.viewMem = make([]byte, n)
	}
	g.viewMem = g.viewMem[:n]
	js.CopyBytesToGo(g.viewMem, in.u8)
	return g.viewMem, uint32(r.Int()), true
}
