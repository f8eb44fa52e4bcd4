package ships

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/fixed"
	"github.com/rewindnet/rewind/game"
)

// TestSyncTest runs ships under the sync test: every tick is rolled back
// and simulated again, and must hash the same.
func TestSyncTest(t *testing.T) {
	st, err := rewind.NewSyncTest[Input](New(), 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]Input, 4)
	for tick := uint32(1); tick <= 600; tick++ {
		for p := range in {
			in[p] = Bot(rewind.PlayerID(p), tick)
		}
		if err := st.Step(in); err != nil {
			t.Fatal(err)
		}
	}
}

// players is how many player slots the trace's script uses.
const players = 8

// present says whether player p is in the trace's match during tick t:
// they join one after another, player 5 leaves and comes back, player 6
// leaves for good, player 7 is away a while.
func present(p int, t uint32) bool {
	if t < uint32(1+p*50) {
		return false
	}
	switch p {
	case 5:
		return t < 3000 || t >= 5000
	case 6:
		return t < 8000
	case 7:
		return t < 4000 || t >= 4400
	}
	return true
}

// trace steps the game for ticks ticks under the script, feeding every
// tick's world hash into a SHA-256, and returns its hex digest and the
// final state.
func trace(t *testing.T, ticks uint32) (string, State) {
	g := New()
	_, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	tk := rewind.Tick[Input]{Inputs: make([]Input, players), Present: make([]bool, players)}
	h := sha256.New()
	var b [8]byte
	for n := uint32(1); n <= ticks; n++ {
		tk.Number = n
		tk.Events = tk.Events[:0]
		for p := range players {
			now := present(p, n)
			switch {
			case now && !tk.Present[p]:
				tk.Events = append(tk.Events, rewind.Event{Kind: rewind.Join, Player: rewind.PlayerID(p)})
			case !now && tk.Present[p]:
				tk.Events = append(tk.Events, rewind.Event{Kind: rewind.Leave, Player: rewind.PlayerID(p)})
			}
			tk.Present[p] = now
			tk.Inputs[p] = Input{}
			if now {
				tk.Inputs[p] = Bot(rewind.PlayerID(p), n)
			}
		}
		g.Step(w, &tk)
		binary.LittleEndian.PutUint64(b[:], w.Hash())
		h.Write(b[:])
	}
	return fmt.Sprintf("%x", h.Sum(nil)), g.State(w)
}

const traceFile = "testdata/trace.txt"

// TestTraceGolden is the game's cross-platform proof: 10,000 ticks of 8
// scripted players (joins, leaves, a return), every tick's world hash,
// hashed together and compared with testdata/trace.txt. CI runs it
// natively with GOAMD64=v1 and v3, as arm64 under qemu and as js/wasm
// under Node (.ci/run). REWIND_WRITE_GOLDEN=1 writes the file again.
func TestTraceGolden(t *testing.T) {
	sum, st := trace(t, 10_000)
	got := fmt.Sprintf("ticks=10000 hash=%s shots=%d hits=%d kills=%d", sum, st.Shots, st.Hits, st.Kills)
	t.Logf("%s on %s/%s", got, runtime.GOOS, runtime.GOARCH)
	if st.Hits == 0 || st.Kills == 0 {
		t.Errorf("the trace has no hit or no kill: %s", got)
	}
	if os.Getenv("REWIND_WRITE_GOLDEN") == "1" {
		if err := os.WriteFile(traceFile, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(traceFile)
	if err != nil {
		t.Fatalf("%v (REWIND_WRITE_GOLDEN=1 writes it)", err)
	}
	if got != strings.TrimSpace(string(want)) {
		t.Errorf("on %s/%s:\n got  %s\n want %s", runtime.GOOS, runtime.GOARCH, got, want)
	}
}

// TestRules checks the rules' invariants over a scripted match: ships stay
// inside the walls and under MaxSpeed, health stays in range, shots stay
// within MaxShots, and hits and kills happen.
func TestRules(t *testing.T) {
	g := New()
	_, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	tk := rewind.Tick[Input]{Inputs: make([]Input, 4), Present: make([]bool, 4)}
	var fx []rewind.Effect
	tk.CollectEffects(&fx)
	lim := HalfArena.Sub(ShipRadius)
	for n := uint32(1); n <= 3000; n++ {
		tk.Number, tk.Events = n, nil
		for p := range 4 {
			if n == 1 {
				tk.Events = append(tk.Events, rewind.Event{Kind: rewind.Join, Player: rewind.PlayerID(p)})
				tk.Present[p] = true
			}
			tk.Inputs[p] = Bot(rewind.PlayerID(p), n)
		}
		g.Step(w, &tk)
		for _, s := range g.Ships(w) {
			if s.Pos.X.Abs() > lim || s.Pos.Y.Abs() > lim || s.Health > MaxHealth {
				t.Fatalf("tick %d: ship %+v", n, s)
			}
			if s.Vel.Length() > MaxSpeed.Add(fixed.Epsilon*4) {
				t.Fatalf("tick %d: ship %d at speed %v", n, s.Player, s.Vel.Length())
			}
		}
	}
	kinds := map[uint16]int{}
	for _, e := range fx {
		kinds[e.Kind]++
	}
	st := g.State(w)
	if kinds[EffectShot] != int(st.Shots) || kinds[EffectHit] != int(st.Hits) || kinds[EffectKill] != int(st.Kills) || st.Kills == 0 {
		t.Errorf("effects %v, state %+v", kinds, st)
	}
}

// TestCollision: two ships flying at each other bounce apart and never
// overlap by more than a tick's motion.
func TestCollision(t *testing.T) {
	ships := []Ship{
		{Pos: fixed.VInt(-12, 0), Vel: fixed.VInt(3, 0), Health: MaxHealth},
		{Pos: fixed.VInt(11, 0), Vel: fixed.VInt(-3, 0), Health: MaxHealth, Player: 1},
	}
	collide(ships)
	if ships[0].Vel != fixed.VInt(-3, 0) || ships[1].Vel != fixed.VInt(3, 0) {
		t.Errorf("velocities not exchanged: %+v", ships)
	}
	if d := ships[1].Pos.Sub(ships[0].Pos).Length(); d != ShipRadius.MulInt(2) {
		t.Errorf("distance after the push %v, want %v", d, ShipRadius.MulInt(2))
	}
}
