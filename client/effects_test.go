package client

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

type hitInput struct{ Hit bool }

// hitGame raises {1, player, tick} for every player that hits, and {2}
// every fifth tick whatever the inputs.
type hitGame struct{ hits world.Value[uint32] }

func (g *hitGame) Register(s *world.Schema) error {
	g.hits = world.AddValue[uint32](s, "hits")
	return s.Err()
}
func (g *hitGame) Setup(*world.World) error { return nil }
func (g *hitGame) Step(w *world.World, t *game.Tick[hitInput]) {
	for p, in := range t.Inputs {
		if t.Present[p] && in.Hit {
			*g.hits.Ptr(w) += 1
			t.Emit(game.Effect{Kind: 1, Args: [game.EffectArgs]int32{int32(p), int32(t.Number)}})
		}
	}
	if t.Number%5 == 0 {
		t.Emit(game.Effect{Kind: 2})
	}
}

type hitRig struct {
	c   *core[hitInput]
	it  *inputs.Type[hitInput]
	buf []byte
}

func newHitRig(t testing.TB) *hitRig {
	g := &hitGame{}
	s := world.NewSchema()
	if err := g.Register(s); err != nil {
		t.Fatal(err)
	}
	w, err := world.New(s)
	if err != nil {
		t.Fatal(err)
	}
	it, err := inputs.NewType[hitInput]()
	if err != nil {
		t.Fatal(err)
	}
	return &hitRig{c: newCore[hitInput](g, w, 0, 2, it.Size(), 10, it.Unpack), it: it}
}

// confirm confirms tick t with the two players' hits (and both joining in
// tick 1); the hash is not checked (0 bits).
func (r *hitRig) confirm(t uint32, a, b bool) {
	r.buf = r.buf[:0]
	r.buf = append(r.buf, r.it.Pack(make([]byte, r.it.Size()), &hitInput{a})...)
	r.buf = append(r.buf, r.it.Pack(make([]byte, r.it.Size()), &hitInput{b})...)
	var ev []game.Event
	if t == 1 {
		ev = []game.Event{{Kind: game.Join, Player: 0}, {Kind: game.Join, Player: 1}}
	}
	r.c.confirm(t, ev, r.buf, 0, 0)
}

func (r *hitRig) own(t uint32, hit bool) {
	r.c.setOwn(t, r.it.Pack(make([]byte, r.it.Size()), &hitInput{hit}))
}

func (r *hitRig) events() string {
	var b strings.Builder
	for _, e := range r.c.fx.drain(nil) {
		fmt.Fprintf(&b, "%s %d %d/%d; ", e.Status, e.Tick, e.Effect.Kind, e.Effect.Args[0])
	}
	return b.String()
}

// TestCoreEffectsThroughRollbacks walks the core through a prediction, a
// rollback that adds effects and one that takes them back, and checks
// every event the view is told.
func TestCoreEffectsThroughRollbacks(t *testing.T) {
	r := newHitRig(t)
	r.confirm(1, false, false)
	r.c.process()
	if got := r.events(); got != "" {
		t.Fatalf("tick 1: %q", got)
	}
	r.own(3, true)
	for range 5 { // predict 2..6: we hit in 3, player 1 is guessed idle
		r.c.advance()
	}
	if got, want := r.events(), "predicted 3 1/0; predicted 5 2/0; "; got != want {
		t.Fatalf("prediction: %q, want %q", got, want)
	}
	// Player 1 hit in 3 and 4: roll back to 3, and the guess for 5 and 6
	// is now that it keeps hitting.
	r.confirm(2, false, false)
	r.confirm(3, true, true)
	r.confirm(4, false, true)
	r.c.process()
	want := "predicted 3 1/1; predicted 4 1/1; predicted 5 1/1; predicted 6 1/1; " +
		"verified 3 1/0; verified 3 1/1; verified 4 1/1; "
	if got := r.events(); got != want {
		t.Fatalf("rollback:\n got %q\nwant %q", got, want)
	}
	// It stopped in 5: the effects predicted for 5 and 6 are taken back;
	// tick 5's own effect stays and is verified once.
	r.confirm(5, false, false)
	r.c.process()
	want = "cancelled 5 1/1; cancelled 6 1/1; verified 5 2/0; "
	if got := r.events(); got != want {
		t.Fatalf("second rollback:\n got %q\nwant %q", got, want)
	}
	// A rollback that changes nothing tells nothing; 6 verifies empty.
	r.confirm(6, false, false)
	r.c.process()
	if got := r.events(); got != "" {
		t.Fatalf("quiet tick: %q", got)
	}
}

func fx(kind uint16, a int32) game.Effect {
	return game.Effect{Kind: kind, Args: [game.EffectArgs]int32{a}}
}

func stepWith(e *effects, u uint32, raised ...game.Effect) {
	*e.begin(7) = append(*e.begin(7), raised...)
	e.stepped(u)
}

func drained(e *effects) string {
	var b strings.Builder
	for _, ev := range e.drain(nil) {
		fmt.Fprintf(&b, "%s %d %d/%d; ", ev.Status, ev.Tick, ev.Effect.Kind, ev.Effect.Args[0])
	}
	return b.String()
}

// TestEffectsDiffMultiset: identical effects of one tick count as many
// times as raised, and order within the tick does not make a new effect.
func TestEffectsDiffMultiset(t *testing.T) {
	var e effects
	stepWith(&e, 1, fx(1, 0), fx(1, 0), fx(2, 0))
	if got, want := drained(&e), "predicted 1 1/0; predicted 1 1/0; predicted 1 2/0; "; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	stepWith(&e, 1, fx(2, 0), fx(1, 0), fx(3, 0), fx(1, 0))
	if got, want := drained(&e), "predicted 1 3/0; "; got != want {
		t.Fatalf("reordered: got %q want %q", got, want)
	}
	stepWith(&e, 1, fx(1, 0))
	if got, want := drained(&e), "cancelled 1 2/0; cancelled 1 3/0; cancelled 1 1/0; "; got != want {
		t.Fatalf("shrunk: got %q want %q", got, want)
	}
	e.verify(1)
	stepWith(&e, 1, fx(4, 0)) // after verification: final, nothing new
	e.verify(1)
	if got, want := drained(&e), "verified 1 1/0; "; got != want {
		t.Fatalf("verified: got %q want %q", got, want)
	}
}

// TestEffectsSkippedTicksCancelled: effects of a tick that is never
// verified (its slot reused, or its predictions discarded) are cancelled,
// never left hanging.
func TestEffectsSkippedTicksCancelled(t *testing.T) {
	var e effects
	stepWith(&e, 2, fx(1, 2))
	stepWith(&e, 10, fx(1, 10)) // slot of 2 (mask 7) reused by 10
	e.verify(18)                // slot of 10 asked for 18: 10 was skipped
	stepWith(&e, 3, fx(1, 3))
	stepWith(&e, 4, fx(1, 4))
	e.discard(3)
	e.verify(3)
	e.verify(4) // discarded: nothing
	want := "predicted 2 1/2; cancelled 2 1/2; predicted 10 1/10; cancelled 10 1/10; " +
		"predicted 3 1/3; predicted 4 1/4; cancelled 4 1/4; verified 3 1/3; "
	if got := drained(&e); got != want {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
}

// TestEffectsQueueDropsOldest: an undrained queue keeps the newest
// EffectQueue events and counts the rest.
func TestEffectsQueueDropsOldest(t *testing.T) {
	var e effects
	e.begin(7)
	for i := range EffectQueue + 10 {
		e.push(EffectPredicted, uint32(i), fx(1, int32(i)))
	}
	got := e.drain(nil)
	if len(got) != EffectQueue || e.dropped != 10 || got[0].Tick != 10 || got[len(got)-1].Tick != EffectQueue+9 {
		t.Fatalf("%d events from tick %d to %d, %d dropped", len(got), got[0].Tick, got[len(got)-1].Tick, e.dropped)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Tick != got[i-1].Tick+1 {
			t.Fatalf("out of order at %d: %d after %d", i, got[i].Tick, got[i-1].Tick)
		}
	}
	if e.drain(nil) != nil {
		t.Fatal("drain did not empty the queue")
	}
}

// TestEffectsSteadyStateNoAllocs: predicting, rolling back, verifying and
// draining effects allocates nothing once the rings and the queue have
// grown.
func TestEffectsSteadyStateNoAllocs(t *testing.T) {
	r := newHitRig(t)
	r.confirm(1, false, false)
	r.c.process()
	dst := make([]EffectEvent, 0, 256)
	tick := uint32(1)
	packed := make([][]byte, 2)
	for b := range packed {
		packed[b] = r.it.Pack(make([]byte, r.it.Size()), &hitInput{b == 1})
	}
	conf := make([]byte, 2*r.it.Size())
	var counts [4]int
	round := func() {
		for range 2 {
			r.c.setOwn(r.c.predicted+1, packed[(r.c.predicted/2)&1])
			r.c.advance()
		}
		tick++
		b := (tick / 3) & 1 // player 1 changes every third tick: rollbacks
		copy(conf, packed[(tick/2)&1])
		copy(conf[r.it.Size():], packed[b])
		r.c.confirm(tick, nil, conf, 0, 0)
		tick++
		copy(conf[r.it.Size():], packed[b])
		r.c.confirm(tick, nil, conf, 0, 0)
		r.c.process()
		dst = r.c.fx.drain(dst[:0])
		for _, e := range dst {
			counts[e.Status]++
		}
	}
	for range 4 { // a lead of 4 ticks over the verified one
		r.c.advance()
	}
	for range 200 {
		round()
	}
	if allocs := testing.AllocsPerRun(100, round); allocs != 0 {
		t.Errorf("%v allocations per round", allocs)
	}
	if r.c.rollbacks == 0 || counts[EffectCancelled] == 0 || counts[EffectVerified] == 0 {
		t.Fatalf("nothing exercised: %d rollbacks, events by status %v", r.c.rollbacks, counts)
	}
	if p, v := r.c.predicted, r.c.verified; p-v != 4 {
		t.Fatalf("predicted %d, verified %d: the rig drifted", p, v)
	}
}

// BenchmarkEffectsStep measures the effect bookkeeping of one step of a
// tick (begin, the game's Emits, the diff against the tick's last
// simulation, draining the events): with no effects, with 16 effects
// raised again unchanged (a resimulation that went the same), and with 16
// effects that all differ from last time (16 cancelled, 16 predicted),
// and the same with 256 (where the diff sorts instead of searching).
func BenchmarkEffectsStep(b *testing.B) {
	lists := [2][]game.Effect{}
	for i := range 256 {
		lists[0] = append(lists[0], fx(1, int32(i)))
		lists[1] = append(lists[1], fx(2, int32(i)))
	}
	for _, c := range []struct {
		name string
		n    int
		flip bool
	}{{"none", 0, false}, {"same16", 16, false}, {"changed16", 16, true}, {"same256", 256, false}, {"changed256", 256, true}} {
		b.Run(c.name, func(b *testing.B) {
			var e effects
			dst := make([]EffectEvent, 0, 64)
			b.ReportAllocs()
			for i := range b.N {
				l := lists[0]
				if c.flip {
					l = lists[(i>>3)&1] // each tick alternates
				}
				p := e.begin(63)
				for _, x := range l[:c.n] {
					*p = append(*p, x)
				}
				e.stepped(uint32(i&7) + 1)
				dst = e.drain(dst[:0])
			}
		})
	}
}

// TestEffectsDiffPathsAgree: the sorted diff (many effects) and the
// searching one (a few) report the same multisets, and both the exact
// difference of the two multisets.
func TestEffectsDiffPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []game.Effect {
		l := make([]game.Effect, n)
		for i := range l {
			l[i] = fx(uint16(rng.IntN(3)), int32(rng.IntN(4))) // many repeats
		}
		return l
	}
	count := func(evs []EffectEvent) map[string]int {
		m := map[string]int{}
		for _, e := range evs {
			m[fmt.Sprint(e.Status, e.Tick, e.Effect)]++
		}
		return m
	}
	for round := range 200 {
		old, now := random(rng.IntN(40)), random(rng.IntN(40))
		var a, b effects
		a.begin(7)
		b.begin(7)
		a.diffSearch(5, old, now)
		b.diffSorted(5, old, now)
		ea, eb := a.drain(nil), b.drain(nil)
		want := map[string]int{}
		multi := map[game.Effect]int{}
		for _, x := range old {
			multi[x]++
		}
		for _, x := range now {
			multi[x]--
		}
		for x, n := range multi {
			switch {
			case n > 0:
				want[fmt.Sprint(EffectCancelled, 5, x)] = n
			case n < 0:
				want[fmt.Sprint(EffectPredicted, 5, x)] = -n
			}
		}
		if !maps.Equal(count(ea), want) || !maps.Equal(count(eb), want) {
			t.Fatalf("round %d: search %v, sorted %v, want %v", round, count(ea), count(eb), want)
		}
		for _, evs := range [][]EffectEvent{ea, eb} { // cancellations first
			for i := 1; i < len(evs); i++ {
				if evs[i].Status == EffectCancelled && evs[i-1].Status == EffectPredicted {
					t.Fatalf("round %d: a cancellation after a prediction", round)
				}
			}
		}
	}
}
