package seat

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/ships"
	"github.com/rewindnet/rewind/view/tab"
	"github.com/rewindnet/rewind/world"
)

// TestShipsUntil plays a single-player ships session in made-up time to
// Until, thrusting and firing: the seat stops there with exactly that
// tick's verified hash, its ship has moved and its shots fly.
func TestShipsUntil(t *testing.T) {
	hashes := map[uint32]uint64{}
	p, err := NewShips(Config{Room: "SH1PS2", Until: 120}, 0, func(g rewind.Game[ships.Input], opts rewind.Options) (*rewind.Session[ships.Input], error) {
		on := opts.Client.OnVerified
		opts.Client.OnVerified = func(tick uint32, h uint64) { hashes[tick] = h; on(tick, h) }
		return rewind.Play(g, opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	now := time.Unix(1000, 0)
	p.SetInput(ships.Input{Turn: 1, Thrust: true, Fire: true})
	var moved bool
	var shots int
	for i := 0; i < 60*10 && !p.Done(); i++ {
		p.Tick(now)
		now = now.Add(time.Second / 240)
		p.Session().ViewBetween(now, func(_, cur *world.World, _ float64) {
			spawn, _ := ships.Spawn(0)
			if s := p.Game().Ships(cur); len(s) == 1 && s[0].Pos != spawn {
				moved = true
			}
			shots = max(shots, len(p.Game().Shots(cur)))
		})
	}
	if !p.Done() || p.Err() != nil {
		t.Fatalf("done %v, err %v, status %q", p.Done(), p.Err(), p.Status())
	}
	st := kv(p.Status())
	if st["verified_tick"] != "120" || st["verified_hash"] != fmt.Sprintf("%016x", hashes[120]) || st["state"] != "done" {
		t.Errorf("final status %q; tick 120's hash %016x", p.Status(), hashes[120])
	}
	if !moved || shots == 0 {
		t.Errorf("the ship moved %v, most shots in flight %d", moved, shots)
	}
}

// TestArenaFill: FillArena takes every ship and shot of the world with
// its place the tick before, a new shot's the same as its place now.
func TestArenaFill(t *testing.T) {
	g := ships.New()
	schema, w, err := game.NewWorld[ships.Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	prev, err := world.New(schema)
	if err != nil {
		t.Fatal(err)
	}
	tk := game.Tick[ships.Input]{Inputs: make([]ships.Input, 2), Present: []bool{true, true},
		Events: []game.Event{{Kind: game.Join, Player: 0}, {Kind: game.Join, Player: 1}}}
	for n := uint32(1); n <= 37; n++ { // fires at ticks 1, 13, 25 and 37
		tk.Number = n
		tk.Inputs[0] = ships.Input{Turn: 1, Thrust: true, Fire: true}
		if err := prev.CopyFrom(w); err != nil {
			t.Fatal(err)
		}
		g.Step(w, &tk)
		tk.Events = nil
	}
	var a tab.Arena
	FillArena(&a, g, prev, w)
	if len(a.Ships) != 2 || len(a.Shots) != len(g.Shots(w)) || len(a.Shots) < 2 {
		t.Fatalf("%d ships, %d shots (world: %d)", len(a.Ships), len(a.Shots), len(g.Shots(w)))
	}
	s0 := a.Ships[0]
	if s0.X == s0.PX && s0.Y == s0.PY || s0.Angle == s0.PAngle {
		t.Errorf("ship 0 did not move or turn: %+v", s0)
	}
	if s := a.Shots[0]; s.X == s.PX {
		t.Errorf("the oldest shot did not move: %+v", s)
	}
	for i, sh := range g.Shots(w) {
		if s := a.Shots[i]; sh.Fired == 37 && (s.X != s.PX || s.Y != s.PY) {
			t.Errorf("a shot fired in the last tick has another place before it: %+v", s)
		}
	}
}

// TestShipsSizes: the sizes tab draws the arena with are games/ships'.
func TestShipsSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		tab, game int64
	}{
		{"half arena", tab.ShipsHalfArena, ships.HalfArena.Int()},
		{"ship radius", tab.ShipsRadius, ships.ShipRadius.Int()},
		{"max health", tab.ShipsMaxHealth, ships.MaxHealth},
		{"respawn ticks", tab.ShipsRespawn, ships.RespawnTicks},
	} {
		if c.tab != c.game {
			t.Errorf("%s: tab draws %d, the game has %d", c.name, c.tab, c.game)
		}
	}
	if ships.HalfArena.Frac() != 0 || ships.ShipRadius.Frac() != 0 {
		t.Error("the arena or a ship is not a whole number of units")
	}
	for i := range 12 {
		in := tab.ShipsInput{Turn: int8(i%3) - 1, Thrust: i&4 != 0, Fire: i&8 != 0}
		if got := ShipsInput(in); got.Turn != in.Turn || got.Thrust != in.Thrust || got.Fire != in.Fire {
			t.Errorf("%+v became %+v", in, got)
		}
	}
}
