package modules

import (
	"bytes"
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/games/coins"
	"github.com/rewindnet/rewind/world"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// goCoins is games/coins played with the scripted inputs.
type goCoins struct {
	g    *coins.Game
	w    *world.World
	tick rewind.Tick[coins.Input]
}

func newGoCoins(t testing.TB, seed int64) *goCoins {
	g := coins.New(seed)
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
	return &goCoins{g: g, w: w, tick: rewind.Tick[coins.Input]{
		Inputs: make([]coins.Input, coins.MaxPlayers), Present: make([]bool, coins.MaxPlayers)}}
}

// step runs tick n with scriptedStatus and scriptedKeys for want players,
// as the module's inputs buffer gets them.
func (gc *goCoins) step(n, want int) {
	tk := &gc.tick
	tk.Number, tk.Events = uint32(n), tk.Events[:0]
	for p := range coins.MaxPlayers {
		s := scriptedStatus(p, n, want)
		switch s {
		case 2:
			tk.Events = append(tk.Events, rewind.Event{Kind: rewind.Join, Player: rewind.PlayerID(p)})
		case 3:
			tk.Events = append(tk.Events, rewind.Event{Kind: rewind.Leave, Player: rewind.PlayerID(p)})
		}
		tk.Present[p] = s == 1 || s == 2
		tk.Inputs[p] = coins.Input{}
		if tk.Present[p] {
			tk.Inputs[p].Keys = uint8(scriptedKeys(p, n))
		}
	}
	gc.g.Step(gc.w, tk)
}

// TestCoinsGoPortAgrees plays coins.wasm (wazero) and games/coins (Go)
// side by side for 1,800 seeded ticks at 4 players (one leaving at 600,
// back at 900) and compares their draw lists after every tick, drawn on a
// canvas of the arena's size in 1/256 pixel: every position, speed (alpha
// 500 draws half a tick's), coin and score, exactly.
func TestCoinsGoPortAgrees(t *testing.T) {
	in := load(t, wazero.NewRuntimeConfig(), Coins, goldenSeed)
	gc := newGoCoins(t, goldenSeed)
	if bot := coins.Bot(2, 77); bot.Keys != uint8(scriptedKeys(2, 77)) {
		t.Fatalf("coins.Bot(2, 77) = %#x, the scripted keys %#x", bot.Keys, uint8(scriptedKeys(2, 77)))
	}
	var mod, port draw.List
	scores := 0
	for n := 1; n <= goldenTicks; n++ {
		in.play(n-1, n, goldenPlayers)
		gc.step(n, goldenPlayers)
		addr := uint32(in.call("rewind_draw", api.EncodeI32(1), api.EncodeI32(coins.Width), api.EncodeI32(coins.Height), api.EncodeI32(500)))
		if err := mod.Decode(in.memory(), addr); err != nil {
			t.Fatalf("tick %d: the module's draw list: %v", n, err)
		}
		port.Reset()
		gc.g.Draw(gc.w, 1, coins.Width, coins.Height, 500, &port)
		if i, ok := sameList(&mod, &port); !ok {
			t.Fatalf("tick %d: the draw lists differ at command %d of %d/%d: module %+v %q, Go %+v %q", n, i, mod.Len(), port.Len(),
				at(&mod, i), data(&mod, i), at(&port, i), data(&port, i))
		}
	}
	for i := range coins.MaxPlayers {
		scores += int(gc.g.State(gc.w).P[i].Score)
	}
	if scores < 10 {
		t.Errorf("only %d coins collected in %d ticks: the test plays too little of the game", scores, goldenTicks)
	}
}

// sameList reports whether a and b hold the same commands and texts; if
// not, the first command that differs.
func sameList(a, b *draw.List) (int, bool) {
	for i := range max(a.Len(), b.Len()) {
		if i >= a.Len() || i >= b.Len() || a.Command(i) != b.Command(i) ||
			!bytes.Equal(a.Data(a.Command(i)), b.Data(b.Command(i))) {
			return i, false
		}
	}
	return 0, true
}

func at(l *draw.List, i int) draw.Command {
	if i < l.Len() {
		return l.Command(i)
	}
	return draw.Command{}
}

func data(l *draw.List, i int) string {
	if i < l.Len() {
		return string(l.Data(l.Command(i)))
	}
	return ""
}
