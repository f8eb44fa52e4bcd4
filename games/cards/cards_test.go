package cards

import (
	"strings"
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// TestDealDrawPlaySwap steps a world as the server does (with the secret)
// through a deal, a draw, a play and a swap, checking the rules and who
// sees which hand.
func TestDealDrawPlaySwap(t *testing.T) {
	g := New()
	s := world.NewSchema()
	if err := g.Register(s); err != nil {
		t.Fatal(err)
	}
	w, err := world.New(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Setup(w); err != nil {
		t.Fatal(err)
	}
	g.SetupSecrets(w, [32]byte{1, 2, 3})
	tk := rewind.Tick[Input]{Number: 1, Inputs: make([]Input, MaxPlayers), Present: make([]bool, MaxPlayers),
		Events: []rewind.Event{{Kind: rewind.Join, Player: 0}, {Kind: rewind.Join, Player: 1}}}
	tk.Present[0], tk.Present[1] = true, true
	g.Step(w, &tk)
	if n := g.hand[0].Len(w); n != Deal || g.deck.Len(w) != DeckSize-1-2*Deal || g.hole.Get(w).Nonce == 0 {
		t.Fatalf("after the deal: hand %d, deck %d", n, g.deck.Len(w))
	}
	if !g.hands[0].Sees(w, 0) || g.hands[0].Sees(w, 1) || g.secret.Sees(w, 0) {
		t.Fatal("viewers after the joins")
	}
	step := func(p int, in Input) {
		tk.Number++
		tk.Events = nil
		tk.Inputs[p] = in
		g.Step(w, &tk)
	}
	step(0, Input{Action: Draw, Seq: 1})
	if g.hand[0].Len(w) != Deal+1 {
		t.Fatalf("draw: hand %d", g.hand[0].Len(w))
	}
	step(0, Input{Action: Draw, Seq: 1}) // the same Seq: nothing
	played := g.hand[0].Get(w, 0)
	step(0, Input{Action: Play, Arg: 0, Seq: 2})
	if g.table.Len(w) != 1 || g.table.Get(w, 0).Nonce != played.Nonce || g.state.Get(w).Scores[0] != int32(played.Value) {
		t.Fatal("play")
	}
	step(1, Input{Action: Swap, Arg: 0, Seq: 1})
	if g.HandOf(w, 0) != 1 || !g.hands[1].Sees(w, 0) || g.hands[0].Sees(w, 0) || !g.hands[0].Sees(w, 1) {
		t.Fatal("swap: viewers")
	}
	if r := g.Render(w, 0); !strings.Contains(r, "hand of seat 0:") || !strings.Contains(r, "table:") {
		t.Fatalf("render: %q", r)
	}
}
