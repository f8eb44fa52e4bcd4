//go:build !js

package module

import (
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// TestMatchesInOneProcess plays two single-player matches side by side in
// made-up time: the counter module's, whose client's verified hashes must
// be the server's (prediction, a memory grow at tick 100), and the loop
// module's, whose step at tick 3 runs forever: its match ends with an
// error naming the module and the tick while the other plays on.
func TestMatchesInOneProcess(t *testing.T) {
	counter := loadFile(t, "counter.wasm", Config{})
	loop := loadFile(t, "loop.wasm", Config{StepBudget: 100 * time.Millisecond})
	hashes := map[uint32]uint64{}
	checked := 0
	var opts rewind.Options
	opts.Server.OnTick = func(tick uint32, w *world.World, h uint64) { hashes[tick] = h }
	opts.Client.OnVerified = func(tick uint32, h uint64) {
		checked++
		if hashes[tick] != h {
			t.Errorf("tick %d: client hash %016x, server %016x", tick, h, hashes[tick])
		}
	}
	a, err := rewind.Play[Input](counter.Game(5), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.SetInputFunc(func(tick uint32) Input { return InputOf([]byte{byte(tick), byte(tick >> 3)}) })
	b, err := rewind.Play[Input](loop.Game(5), rewind.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var bErr error
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 3000 {
		now = now.Add(time.Millisecond)
		if err := a.Update(now); err != nil {
			t.Fatal(err)
		}
		if bErr == nil {
			bErr = b.Update(now)
		}
	}
	if bErr == nil || !strings.Contains(bErr.Error(), "loop.wasm") || !strings.Contains(bErr.Error(), "tick 3") {
		t.Errorf("the looping module's match: %v", bErr)
	}
	st := a.Stats()
	if st.Verified < 170 || checked != int(st.Verified) || st.Desyncs != 0 {
		t.Fatalf("the counter's match after 3 s: %+v, %d ticks checked", st, checked)
	}
}
