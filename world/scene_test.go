package world

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"
)

// sceneWorld is a world with a public grid and value, two private scenes
// (a hand each: a table, a value with a bool) and a server scene (a deck
// table and a generator).
type sceneWorld struct {
	s            *Schema
	board        Grid[uint16]
	turn         Value[uint32]
	hand         [2]Scene
	cards        [2]Table[uint32]
	bet          [2]Value[sceneBet]
	secret       Scene
	deck         Table[uint32]
	rng          RNG
	afterSecrets Table[uint64] // public, registered after the scenes
}

type sceneBet struct {
	Amount int32
	Folded bool
	_      [3]byte
}

func newSceneWorld(t testing.TB) (*sceneWorld, *World) {
	t.Helper()
	sw := &sceneWorld{s: NewSchema()}
	s := sw.s
	sw.board = AddGrid[uint16](s, "board", 40, 40)
	sw.turn = AddValue[uint32](s, "turn")
	for p := range sw.hand {
		sw.hand[p] = s.AddScene([]string{"hand0", "hand1"}[p], ScenePrivate)
		sw.cards[p] = AddTable[uint32](s, []string{"cards0", "cards1"}[p], 2000, sw.hand[p])
		sw.bet[p] = AddValue[sceneBet](s, []string{"bet0", "bet1"}[p], sw.hand[p])
	}
	sw.secret = s.AddScene("server", SceneServer)
	sw.deck = AddTable[uint32](s, "deck", 52, sw.secret)
	sw.rng = AddRNG(s, "rng", sw.secret)
	sw.afterSecrets = AddTable[uint64](s, "log", 100)
	w, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return sw, w
}

// secretCard marks the values the tests look for in bytes a player may
// not see: no public or visible byte sequence holds it by chance.
const secretCard = 0x5EC12E7A

func (sw *sceneWorld) fill(w *World, r *rand.Rand) {
	for i := range 200 {
		sw.board.Set(w, r.IntN(40), r.IntN(40), uint16(i))
	}
	sw.turn.Set(w, r.Uint32())
	for p := range sw.cards {
		for range 1 + r.IntN(1500) {
			_, _ = sw.cards[p].Add(w, secretCard+uint32(p))
		}
		sw.bet[p].Set(w, sceneBet{Amount: secretCard, Folded: r.IntN(2) == 0})
	}
	for range 52 {
		_, _ = sw.deck.Add(w, secretCard+7)
	}
	sw.rng.Seed(w, r.Uint64())
	_, _ = sw.afterSecrets.Add(w, r.Uint64())
}

// TestScenesLayout checks that a scene is whole pages, that private
// scenes register their viewers in the public meta, and that a world's
// snapshots, restores and hashes work across scenes.
func TestScenesLayout(t *testing.T) {
	sw, w := newSceneWorld(t)
	l := w.Layout()
	if !l.HasScenes() || l.Scenes() != 4 {
		t.Fatalf("HasScenes %v, Scenes %d", l.HasScenes(), l.Scenes())
	}
	if n, k := l.SceneName(3); n != "server" || k != SceneServer {
		t.Fatalf("scene 3: %s %s", n, k)
	}
	// Every page belongs to exactly one scene, and a scene's pages hold
	// only that scene's regions.
	for i := range l.Pages() {
		r := &l.regions[l.pageRegion[i]]
		if l.PageScene(i) != r.scene {
			t.Fatalf("page %d: scene %d, region %q of scene %d", i, l.PageScene(i), r.name, r.scene)
		}
	}
	for p := range sw.cards {
		off := sw.cards[p].s.lenOff
		if l.PageScene(off/l.pageSize) != sw.hand[p].Index() {
			t.Fatalf("cards%d's length lives on a page of scene %d", p, l.PageScene(off/l.pageSize))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	sw.fill(w, r)
	var snap Snapshot
	w.SnapshotInto(&snap)
	if snap.Hash() != w.Hash() || w.ViewHash(l.FullView()) != w.Hash() {
		t.Fatalf("snapshot hash %x, world %x, full view %x", snap.Hash(), w.Hash(), w.ViewHash(l.FullView()))
	}
	w2 := NewFromLayout(l)
	if err := w2.Restore(&snap); err != nil || !w2.Equal(w) || w2.Hash() != w.Hash() {
		t.Fatalf("restore: %v, equal %v", err, w2.Equal(w))
	}
	// Shrink a scene table and restore over a bigger one: the tail must
	// be zeroed (the length lives in the scene's meta page).
	sw.cards[0].Truncate(w2, 1)
	var small Snapshot
	w2.SnapshotInto(&small)
	w3 := NewFromLayout(l)
	_ = w3.Restore(&snap)
	if err := w3.Restore(&small); err != nil || !w3.Equal(w2) {
		t.Fatalf("restore of a shorter scene table: %v", err)
	}
	if !isZero(w3.mem[sw.cards[0].s.off+4 : sw.cards[0].s.off+2000*4]) {
		t.Fatal("bytes past a scene table's length after restore")
	}
	_ = w3.CopyFrom(w)
	if err := w3.CopyFrom(w2); err != nil || !w3.Equal(w2) || !isZero(w3.mem[sw.cards[0].s.off+4:sw.cards[0].s.off+2000*4]) {
		t.Fatal("CopyFrom a shorter scene table")
	}
	w3.Reset()
	if !w3.Equal(NewFromLayout(l)) {
		t.Fatal("Reset left scene bytes")
	}
}

// TestViewHashAndCopyView checks what a view sees: ViewHash ignores every
// scene outside the view, CopyView holds none of their bytes and hashes
// as ViewHash, and an encoding of the copy decodes to it.
func TestViewHashAndCopyView(t *testing.T) {
	sw, w := newSceneWorld(t)
	l := w.Layout()
	r := rand.New(rand.NewPCG(3, 4))
	sw.fill(w, r)
	sw.hand[0].SetViewers(w, 1<<0)
	sw.hand[1].SetViewers(w, 1<<1|1<<5)
	if v := w.ViewOf(0); v != 1|1<<1 {
		t.Fatalf("view of player 0: %b", v)
	}
	if v := w.ViewOf(5); v != 1|1<<2 {
		t.Fatalf("view of player 5: %b", v)
	}
	if v := w.ViewOf(3); v != 1 {
		t.Fatalf("view of player 3: %b", v)
	}
	// An id outside 0..63 (a spectator's, 0xff) is in no scene's
	// viewers, even a scene every player sees.
	sw.hand[0].SetViewers(w, ^uint64(0))
	if v0, vs := w.ViewOf(0), w.ViewOf(0xff); v0 != 1|1<<1 || vs != 1 || w.ViewOf(64) != 1 || w.ViewOf(-1) != 1 {
		t.Fatalf("views with a scene everyone sees: player 0 %b, spectator %b", v0, vs)
	}
	sw.hand[0].SetViewers(w, 1<<0)
	if !sw.hand[1].Sees(w, 5) || sw.hand[1].Sees(w, 0) || sw.secret.Sees(w, 0) || !(Scene{}).Sees(w, 9) {
		t.Fatal("Sees")
	}
	v0 := w.ViewOf(0)
	before := w.ViewHash(v0)
	// Changing what player 0 cannot see leaves its view's hash alone.
	_, _ = sw.cards[1].Add(w, 99)
	sw.bet[1].Set(w, sceneBet{Amount: 1})
	sw.rng.Uint64(w)
	sw.deck.Remove(w, 3)
	if h := w.ViewHash(v0); h != before {
		t.Fatal("a hidden change changed the view hash")
	}
	// Changing what it sees changes it.
	sw.bet[0].Set(w, sceneBet{Amount: 2})
	if w.ViewHash(v0) == before {
		t.Fatal("a visible change left the view hash")
	}
	for _, v := range []View{1, v0, w.ViewOf(5), l.FullView()} {
		c := NewFromLayout(l)
		if err := c.CopyView(w, v); err != nil {
			t.Fatal(err)
		}
		if c.Hash() != w.ViewHash(v) {
			t.Fatalf("view %b: copy hash %x, ViewHash %x", v, c.Hash(), w.ViewHash(v))
		}
		for i := 1; i < l.Scenes(); i++ {
			hidden := !v.Has(i)
			if got := secretIn(c.mem, uint32(secretCard+map[int]int{1: 0, 2: 1, 3: 7}[i])); got == hidden && hidden {
				t.Fatalf("view %b: scene %d's secret in the copy", v, i)
			}
		}
		for _, enc := range [][]byte{c.AppendWorld(nil), func() []byte { c.SetCompression(CompressNone); return c.AppendWorld(nil) }()} {
			d := NewFromLayout(l)
			if err := d.DecodeWorld(enc); err != nil || !d.Equal(c) {
				t.Fatalf("view %b: decode of the copy: %v", v, err)
			}
		}
	}
}

// secretIn reports whether mem holds the little-endian bytes of x.
func secretIn(mem []byte, x uint32) bool {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], x)
	return bytes.Contains(mem, b[:])
}

// TestScenesEncodings round-trips deltas and page repairs of a world
// with scenes, and decoding refuses a world whose scene table length is
// past capacity.
func TestScenesEncodings(t *testing.T) {
	sw, w := newSceneWorld(t)
	r := rand.New(rand.NewPCG(5, 6))
	sw.fill(w, r)
	var base Snapshot
	w.SnapshotInto(&base)
	sw.fill(w, r)
	sw.cards[0].Truncate(w, 3)
	enc, err := w.AppendDelta(nil, &base)
	if err != nil {
		t.Fatal(err)
	}
	d := NewFromLayout(w.Layout())
	_ = d.Restore(&base)
	if err := d.DecodeDelta(enc, &base); err != nil || !d.Equal(w) {
		t.Fatalf("delta: %v", err)
	}
	_ = d.Restore(&base)
	pages, err := w.AppendPages(nil, d.PageHashes(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.ApplyPages(pages); err != nil || !d.Equal(w) {
		t.Fatalf("pages: %v", err)
	}
	// A scene table length past capacity is refused.
	bad := NewFromLayout(w.Layout())
	_ = bad.CopyFrom(w)
	binary.LittleEndian.PutUint32(bad.mem[sw.cards[1].s.lenOff:], 2001)
	bad.SetCompression(CompressNone)
	if err := d.DecodeWorld(bad.AppendWorld(nil)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("length past capacity in a scene: %v", err)
	}
}

// TestSceneRegistrationErrors checks the errors of AddScene and of
// registering into a scene.
func TestSceneRegistrationErrors(t *testing.T) {
	for name, f := range map[string]func(s *Schema){
		"public kind": func(s *Schema) { s.AddScene("x", ScenePublic) },
		"twice":       func(s *Schema) { s.AddScene("x", ScenePrivate); s.AddScene("x", SceneServer) },
		"two scenes": func(s *Schema) {
			a, b := s.AddScene("a", ScenePrivate), s.AddScene("b", ScenePrivate)
			AddValue[int32](s, "v", a, b)
		},
		"foreign scene": func(s *Schema) { AddTable[int32](s, "t", 3, NewSchema().AddScene("x", ScenePrivate)) },
	} {
		s := NewSchema()
		f(s)
		if _, err := New(s); !errors.Is(err, ErrSchema) {
			t.Errorf("%s: %v, want ErrSchema", name, err)
		}
	}
	s := NewSchema()
	sc := s.AddScene("srv", SceneServer)
	w, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("SetViewers of a server scene did not panic")
		}
	}()
	sc.SetViewers(w, 1)
}

// TestNoScenesNoCost checks that a schema without scenes lays out as
// before scenes existed (the golden hashes pin the rest).
func TestNoScenesNoCost(t *testing.T) {
	tw := newTestSchema(t, 0)
	w := tw.new(t)
	if w.Layout().HasScenes() || w.Layout().Scenes() != 1 || w.ViewOf(3) != 1 || w.ViewHash(1) != w.Hash() {
		t.Fatal("a world without scenes has scenes")
	}
}

// TestScenesDiffAndDump checks that the desync debugger's Diff and world
// dumps read a world with scenes: a scene table's change is named, and a
// dump parses back and diffs empty against its world.
func TestScenesDiffAndDump(t *testing.T) {
	sw, w := newSceneWorld(t)
	sw.fill(w, rand.New(rand.NewPCG(7, 8)))
	w2 := NewFromLayout(w.Layout())
	_ = w2.CopyFrom(w)
	*sw.cards[1].At(w2, 0) = 1
	d, err := ParseDump(w.AppendDump(nil, 9))
	if err != nil {
		t.Fatal(err)
	}
	if _, n, err := w.DiffDump(d, 0); err != nil || n != 0 {
		t.Fatalf("dump of the same world: %d differences, %v", n, err)
	}
	if js := w.AppendJSON(nil); !json.Valid(js) || !bytes.Contains(js, []byte(`"cards1":[`)) || !bytes.Contains(js, []byte(`"bet0":{`)) {
		t.Fatalf("AppendJSON of a world with scenes: %.200s", js)
	}
	diffs, n, err := Diff(w, w2, 0)
	if err != nil || n != 1 || diffs[0].Table != "cards1" {
		t.Fatalf("diff: %v %d %v", diffs, n, err)
	}
}
