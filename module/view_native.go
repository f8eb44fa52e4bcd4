//go:build !js

package module

import "github.com/rewindnet/rewind/world"

// viewCall calls the view export name with args on a copy of cur (the
// game's view world, an instance of its own) and returns the module's
// memory after it and the address the export returned.
func (g *Game) viewCall(cur *world.World, name string, args ...int32) ([]byte, uint32, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.viewW == nil {
		g.viewW = world.NewFromLayout(cur.Layout())
	}
	w := g.viewW
	if w.CopyFrom(cur) != nil {
		return nil, 0, false
	}
	in := g.instance(w)
	if in.err != nil { // a view call that failed before: a new instance
		in = g.newInstance(w, false)
		g.keep(w, in)
	}
	if in.err != nil {
		return nil, 0, false
	}
	if in = g.syncIn(in, w); in.err != nil {
		return nil, 0, false
	}
	f := in.mod.ExportedFunction(name)
	if f == nil {
		return nil, 0, false
	}
	for i, a := range args {
		in.stack[i] = uint64(uint32(a))
	}
	if err := in.call(f); err != nil {
		in.err = err
		return nil, 0, false
	}
	return in.region[:in.mem.Size()], uint32(in.stack[0]), true
}
