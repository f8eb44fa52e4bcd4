package world

import (
	"fmt"
	"math/bits"
	"strings"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// SceneKind says who may see a scene's state.
type SceneKind uint8

// Scene kinds.
const (
	// ScenePublic is seen by every player: what is registered without a
	// scene lives there.
	ScenePublic SceneKind = iota
	// ScenePrivate is seen by the players its viewers set names (state the
	// game changes in Step: Scene.SetViewers).
	ScenePrivate
	// SceneServer is seen by no player: only the server holds it (a deck's
	// order, the seed of a generator that decides loot).
	SceneServer
)

// MaxScenes is the most private and server scenes a schema may declare.
const MaxScenes = 63

// String returns "public", "private" or "server".
func (k SceneKind) String() string {
	switch k {
	case ScenePublic:
		return "public"
	case ScenePrivate:
		return "private"
	case SceneServer:
		return "server"
	}
	return fmt.Sprintf("SceneKind(%d)", uint8(k))
}

// Scene is a handle to a part of the world that only some players see: a
// private scene (a hand of cards, a team's fog of war) or a server-only
// scene (a deck's order, a secret seed). The zero Scene is the public
// scene. Register state into a scene by passing it to AddTable, AddGrid,
// AddValue or AddRNG; a scene is a set of whole pages (its tables' lengths
// and its values live in a page of their own), so a player that does not
// see it is sent none of its bytes, page hashes included (docs/scenes.md).
//
// Which players see a private scene is world state in the public scene (a
// uint64 with bit p for player p, registered as the value "scene:NAME"):
// the game changes it in Step, so every machine agrees on it tick by tick.
type Scene struct{ sc *sceneSlot }

type sceneSlot struct {
	schema  *Schema
	name    string
	kind    SceneKind
	index   int           // 1.. in registration order
	viewers Value[uint64] // private scenes: who sees it
	lh      uint64        // layout hash, once frozen
}

// sceneDesc is a scene as the layout knows it.
type sceneDesc struct {
	name       string
	kind       SceneKind
	viewersOff int // private: offset of the viewers mask in the meta region; else -1
}

// AddScene registers a private or server-only scene named name (kind
// ScenePrivate or SceneServer; the public scene needs no registration).
// A private scene also registers its viewers mask, a public uint64 value
// named "scene:NAME", initially 0 (nobody sees it).
func (s *Schema) AddScene(name string, kind SceneKind) Scene {
	sc := &sceneSlot{schema: s, name: name, kind: kind, index: len(s.scenes) + 1}
	if s.frozenErr(fmt.Sprintf("scene %q", name)) {
		return Scene{sc}
	}
	switch {
	case kind != ScenePrivate && kind != SceneServer:
		s.fail(fmt.Errorf("%w: scene %q: kind %s (only private and server scenes are registered)", ErrSchema, name, kind))
		return Scene{sc}
	case len(s.scenes) == MaxScenes:
		s.fail(fmt.Errorf("%w: more than %d scenes", ErrSchema, MaxScenes))
		return Scene{sc}
	}
	for _, o := range s.scenes {
		if o.name == name {
			s.fail(fmt.Errorf("%w: scene %q registered twice", ErrSchema, name))
			return Scene{sc}
		}
	}
	if kind == ScenePrivate {
		sc.viewers = AddValue[uint64](s, "scene:"+name)
	}
	s.scenes = append(s.scenes, sc)
	return Scene{sc}
}

// sceneOf returns the scene a registration named name goes to (nil: the
// public scene), recording an error for more than one or a foreign one.
func (s *Schema) sceneOf(name string, in []Scene) *sceneSlot {
	switch {
	case len(in) == 0 || in[0].sc == nil && len(in) == 1:
		return nil
	case len(in) > 1:
		s.fail(fmt.Errorf("%w: %q: more than one scene", ErrSchema, name))
		return nil
	case in[0].sc.schema != s || in[0].sc.index == 0 || s.scenes[in[0].sc.index-1] != in[0].sc:
		s.fail(fmt.Errorf("%w: %q: the scene %q is not one of this schema's", ErrSchema, name, in[0].sc.name))
		return nil
	}
	return in[0].sc
}

// layoutScenes lays out every private and server scene after the public
// regions, from pos: per scene a meta region (its tables' lengths, then
// its values, each aligned), then its tables and grids. It returns the
// next free offset, or -1.
func (s *Schema) layoutScenes(l *Layout, d *strings.Builder, pos int) int {
	l.scenes = append(l.scenes[:0], sceneDesc{name: "public", kind: ScenePublic, viewersOff: -1})
	if len(s.scenes) == 0 {
		return pos
	}
	ps := s.pageSize
	for _, sc := range s.scenes {
		desc := sceneDesc{name: sc.name, kind: sc.kind, viewersOff: -1}
		if sc.kind == ScenePrivate {
			desc.viewersOff = sc.viewers.s.off
		}
		l.scenes = append(l.scenes, desc)
		fmt.Fprintf(d, "scene %q %s\n", sc.name, sc.kind)
		var tables []*slot
		for _, r := range s.regions {
			if r.scene == sc && r.kind == kindTable {
				tables = append(tables, r)
			}
		}
		meta := len(l.regions)
		off := 4 * len(tables)
		var bools []int
		for _, v := range s.values {
			if v.scene != sc {
				continue
			}
			a := v.info.align
			aligned := (off + a - 1) / a * a
			if aligned > off {
				l.metaFree = append(l.metaFree, [2]int{pos + off, pos + aligned})
			}
			off = aligned
			v.off = pos + off
			for _, b := range v.info.bools {
				bools = append(bools, off+b)
			}
			fmt.Fprintf(d, "value %q %s @%d\n", v.name, v.info.desc, off)
			l.values = append(l.values, region{name: v.name, kind: kindValue, off: pos + off, elem: v.info.size, count: 1, lenOff: -1, typ: v.info.typ})
			off += v.info.size
		}
		end := max(8, (off+7)/8*8)
		pages := (end + ps - 1) / ps
		l.metaFree = append(l.metaFree, [2]int{pos + off, pos + pages*ps})
		l.regions = append(l.regions, region{name: "scene:" + sc.name, kind: kindSceneMeta, off: pos, capBytes: end,
			elem: end, count: 1, lenOff: -1, bools: bools, firstPage: pos / ps, pages: pages,
			scene: sc.index, snapOff: l.fixedBytes, lenSnap: -1, hiddenHash: xxh3.Hash(make([]byte, end))})
		l.fixedBytes += end
		pos += pages * ps
		ti := 0
		for _, r := range s.regions {
			if r.scene != sc {
				continue
			}
			if pos = s.placeRegion(l, d, r, pos, l.regions[meta].off+4*ti); pos < 0 {
				return -1
			}
			rg := &l.regions[len(l.regions)-1]
			rg.scene = sc.index
			if r.kind == kindTable {
				rg.lenSnap = l.regions[meta].snapOff + 4*ti
				rg.hiddenHash = xxh3.Hash(nil)
				ti++
			} else {
				rg.hiddenHash = xxh3.Hash(make([]byte, rg.capBytes))
			}
		}
	}
	return pos
}

// freezeScenes stores the layout hash in every scene handle.
func (s *Schema) freezeScenes(lh uint64) {
	for _, sc := range s.scenes {
		sc.lh = lh
	}
}

// Name returns the scene's name ("public" for the zero Scene).
func (sc Scene) Name() string {
	if sc.sc == nil {
		return "public"
	}
	return sc.sc.name
}

// Kind returns the scene's kind.
func (sc Scene) Kind() SceneKind {
	if sc.sc == nil {
		return ScenePublic
	}
	return sc.sc.kind
}

// Index returns the scene's index in a View: 0 for the public scene, then
// 1, 2, … in registration order.
func (sc Scene) Index() int {
	if sc.sc == nil {
		return 0
	}
	return sc.sc.index
}

// Viewers returns who sees the scene in w: bit p for player p. The public
// scene is seen by all (every bit), a server scene by none.
func (sc Scene) Viewers(w *World) uint64 {
	switch sc.Kind() {
	case ScenePublic:
		return ^uint64(0)
	case SceneServer:
		return 0
	}
	return sc.sc.viewers.Get(w)
}

// SetViewers sets who sees the private scene in w (bit p for player p).
// Call it from Step (or Setup), like any change of the world. It panics
// for the public and server scenes, whose viewers are fixed.
func (sc Scene) SetViewers(w *World, players uint64) {
	if sc.Kind() != ScenePrivate {
		panic(fmt.Sprintf("world: scene %q: viewers of a %s scene are fixed", sc.Name(), sc.Kind()))
	}
	sc.sc.viewers.Set(w, players)
}

// Sees reports whether player p sees the scene in w.
func (sc Scene) Sees(w *World, p int) bool {
	return uint(p) < 64 && sc.Viewers(w)>>uint(p)&1 == 1
}

// View is a set of scenes, bit i for the scene of Index i; bit 0, the
// public scene, is in every view a player has.
type View uint64

// Has reports whether the view holds the scene of index i.
func (v View) Has(i int) bool { return uint(i) < 64 && v>>uint(i)&1 == 1 }

// HasScenes reports whether the layout has private or server scenes.
func (l *Layout) HasScenes() bool { return len(l.scenes) > 1 }

// Scenes returns the number of scenes, the public one included.
func (l *Layout) Scenes() int { return max(1, len(l.scenes)) }

// SceneName returns the name and kind of the scene of index i.
func (l *Layout) SceneName(i int) (string, SceneKind) {
	if i == 0 || i >= len(l.scenes) {
		return "public", ScenePublic
	}
	return l.scenes[i].name, l.scenes[i].kind
}

// FullView returns the view of every scene: the server's.
func (l *Layout) FullView() View {
	n := l.Scenes()
	if n == 64 {
		return ^View(0)
	}
	return View(1)<<uint(n) - 1
}

// PageScene returns the index of the scene page i belongs to.
func (l *Layout) PageScene(i int) int { return l.regions[l.pageRegion[i]].scene }

// ViewOf returns the view of player p in w: the public scene and every
// private scene whose viewers include p. A p outside 0..63 (a spectator's
// id, codec.SpectatorID) is in no scene's viewers: its view is the public
// scene alone.
func (w *World) ViewOf(p int) View {
	v := View(1)
	for i := 1; i < len(w.layout.scenes); i++ {
		off := w.layout.scenes[i].viewersOff
		if off >= 0 && uint(p) < 64 && *(*uint64)(unsafe.Pointer(&w.mem[off]))>>uint(p)&1 == 1 {
			v |= 1 << uint(i)
		}
	}
	return v
}

// ViewHash returns the hash of what view v sees of w: the Hash of the world
// w would be if every scene outside v were empty (tables empty, grids and
// values zero), which is what a player of that view holds after any
// transfer. It equals Hash for the full view, and costs what Hash costs
// for the scenes in v. It does not allocate.
func (w *World) ViewHash(v View) uint64 {
	l := w.layout
	h := xxh3.Hash(w.mem[:l.metaSize])
	for i := 1; i < len(l.regions); i++ {
		r := &l.regions[i]
		if !v.Has(r.scene) {
			h = chainHash(h, r.hiddenHash)
			continue
		}
		h = chainHash(h, xxh3.Hash(w.mem[r.off:r.off+w.used(r)]))
	}
	return h
}

// CopyView makes w what view v sees of src (same layout): src's bytes in
// the scenes of v, every other scene empty. The server encodes a player's
// world transfers and repairs from such a copy, so nothing of a scene the
// player does not see is in them; its Hash is src.ViewHash(v).
func (w *World) CopyView(src *World, v View) error {
	if err := w.CopyFrom(src); err != nil {
		return err
	}
	w.Hide(v)
	return nil
}

// Hide empties every scene of w outside view v (tables empty, grids and
// values zero): after it, Hash equals the former ViewHash(v).
func (w *World) Hide(v View) {
	l := w.layout
	// Backwards: a scene's tables before the meta region holding their
	// lengths.
	for i := len(l.regions) - 1; i > 0; i-- {
		r := &l.regions[i]
		if !v.Has(r.scene) {
			clear(w.mem[r.off : r.off+w.used(r)])
		}
	}
}

// HiddenScenes returns the scenes of w's layout outside view v, as a view.
func (l *Layout) HiddenScenes(v View) View { return l.FullView() &^ v }

// Count returns the number of scenes in the view.
func (v View) Count() int { return bits.OnesCount64(uint64(v)) }
