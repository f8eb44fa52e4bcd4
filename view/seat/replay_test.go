package seat

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/view/internal/sandmatch"
	"github.com/rewindnet/rewind/world"
)

// recordSand returns a server's replay of a 5 s sand match of two bots
// on a 32-cell grid, a keyframe every 60 ticks.
func recordSand(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	rec := &replay.Recorder{Game: "sand", Settings: sandmatch.Settings(32, 60), KeyframeEvery: 60,
		Open: func(replay.Header) (io.Writer, error) { return &buf, nil }}
	if err := sandmatch.Record(sandmatch.Config{
		Players:  2,
		Grid:     32,
		Duration: 5 * time.Second,
		Link:     transport.LinkConfig{Latency: 20 * time.Millisecond},
		Seed:     3,
		Record:   rec,
	}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReplaySeat: the window's replay seat plays at its speed by the
// clock it is given, pauses, seeks by match time (clamped to the
// replay), stops at Until with that tick's recorded hash in its status,
// and refuses an Until outside the replay.
func TestReplaySeat(t *testing.T) {
	b := recordSand(t)
	hashes := map[uint32]uint64{}
	if _, err := sandmatch.Verify(b, replay.Options{OnTick: func(tick uint32, w *world.World) error {
		hashes[tick] = w.Hash()
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	r, err := NewReplay("m.rwreplay", b, 2, 250)
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Entry().Values(r.Game()); r.Entry().Name != "sand" || v["grid"] != 32 {
		t.Fatalf("game %s %v, want the recorded sand on a 32-cell grid", r.Entry().Name, v)
	}
	if w, h := r.Size(); w != 64 || h != 64 {
		t.Fatalf("canvas %d×%d, want sand's 64×64 of a 32-cell grid", w, h)
	}
	p := r.Player()
	start := p.Tick()
	now := time.Unix(1000, 0)
	_ = r.Update(now) // the clock starts
	if err := r.Update(now.Add(500 * time.Millisecond)); err != nil || p.Tick() != start+60 {
		t.Fatalf("half a second at speed 2: at tick %d (from %d), %v", p.Tick(), start, err)
	}
	r.TogglePause()
	if _ = r.Update(now.Add(2 * time.Second)); p.Tick() != start+60 {
		t.Fatalf("paused: at tick %d", p.Tick())
	}
	r.TogglePause()
	if err := r.SeekBy(-time.Hour); err != nil || p.Tick() != p.First() {
		t.Fatalf("seek an hour back: at tick %d, %v", p.Tick(), err)
	}
	if err := r.SeekBy(3 * time.Second); err != nil || p.Tick() != p.First()+180 || p.World().Hash() != hashes[p.First()+180] {
		t.Fatalf("seek 3 s on: at tick %d, %v", p.Tick(), err)
	}
	if err := r.Update(now.Add(time.Hour)); err != nil || !r.Done() || p.Tick() != 250 {
		t.Fatalf("an hour on with Until 250: at tick %d, done %v, %v", p.Tick(), r.Done(), err)
	}
	want := "tick=250 "
	if st := r.Status(); !strings.Contains(st, want) || !strings.HasSuffix(st, "hash="+fmt.Sprintf("%016x", hashes[250])) {
		t.Fatalf("status %q: want %q and tick 250's hash %s", st, want, fmt.Sprintf("%016x", hashes[250]))
	}
	if _, err := NewReplay("m", b, 1, p.Last()+1); !errors.Is(err, replay.ErrSeek) {
		t.Fatalf("Until past the end: %v", err)
	}
	if _, err := NewReplay("m", b[:10], 1, 0); err == nil {
		t.Fatal("a replay cut in its header loaded")
	}
}
