package replay_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/testing/simmatch"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// badHash records a wrong hash for one tick (a replay that diverges
// there).
type badHash struct {
	*replay.Recorder
	at uint32
}

func (b badHash) RecordTick(tick uint32, events []game.Event, inputs []byte, hash uint64, w *world.World) {
	if tick == b.at {
		hash ^= 1
	}
	b.Recorder.RecordTick(tick, events, inputs, hash, w)
}

// recordSand records a server's replay of a 6 s sand match of three bots
// (one joins at 2 s) on a lossy simulated network, a keyframe every 100
// ticks; badAt, when not 0, is a tick recorded with a wrong hash.
func recordSand(t *testing.T, badAt uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	rec := &replay.Recorder{Game: "sand", KeyframeEvery: 100,
		Open: func(codec.ReplayHeader) (io.Writer, error) { return &buf, nil }}
	cfg := simmatch.Config[sand.Input]{
		Players:  3,
		NewGame:  func() game.Game[sand.Input] { return sand.New(32) },
		Bot:      sand.Bot,
		Duration: 6 * time.Second,
		Link:     transport.LinkConfig{Latency: 30 * time.Millisecond, Loss: 0.05},
		JoinAt:   map[int]time.Duration{2: 2 * time.Second},
		Seed:     11,
	}
	cfg.Server.StartPlayers = 2
	cfg.Server.Record = rec
	if badAt != 0 {
		cfg.Server.Record = badHash{rec, badAt}
	}
	if _, err := simmatch.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReplayPlayerSeek: seeks land on the tick asked for with the world
// whose hash Verify saw there (an independent pass over the file),
// from the nearest keyframe at or before it, backwards and forwards; past
// the end or before the start is ErrSeek and the player stays;
// Advance plays at its speed and stops at the end.
func TestReplayPlayerSeek(t *testing.T) {
	b := recordSand(t, 0)
	hashes := map[uint32]uint64{}
	res, err := replay.Verify[sand.Input](sand.New(32), bytes.NewReader(b), replay.Options{
		OnTick: func(tick uint32, w *world.World) error { hashes[tick] = w.Hash(); return nil }})
	if err != nil || !res.Verified {
		t.Fatalf("Verify: %+v, %v", res, err)
	}
	p, err := replay.Load[sand.Input](sand.New(32), bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	first, last := p.First(), p.Last()
	if last != res.LastTick || last < 350 || p.Tick() != first || p.Truncated() {
		t.Fatalf("loaded first=%d last=%d tick=%d truncated=%v; Verify's last tick %d", first, last, p.Tick(), p.Truncated(), res.LastTick)
	}
	keys := p.Keyframes()
	want := []uint32{first}
	for k := (first/100 + 1) * 100; k <= last; k += 100 {
		want = append(want, k)
	}
	if len(keys) != len(want) || len(keys) < 4 {
		t.Fatalf("keyframes %v, want %v", keys, want)
	}
	for i := range keys {
		if keys[i] != want[i] {
			t.Fatalf("keyframes %v, want %v", keys, want)
		}
	}
	k1, k2, k3 := keys[1], keys[2], keys[3]
	for _, c := range []struct {
		name     string
		to       uint32
		from     uint32
		keyframe bool
	}{
		{"before the first keyframe", k1 - 30, first, false}, // ahead of the start, no keyframe between
		{"on a keyframe", k2, k2, true},
		{"back, after a keyframe", k1 + 20, k1, true},
		{"forward, no keyframe between", k1 + 70, k1 + 20, false},
		{"forward past a keyframe", k3 + 5, k3, true},
		{"back to the start", first, first, true},
		{"the last tick", last, keys[len(keys)-1], true},
		{"back before the first keyframe", k1 - 1, first, true},
	} {
		sr, err := p.Seek(c.to)
		if err != nil {
			t.Fatalf("%s: Seek(%d): %v", c.name, c.to, err)
		}
		if p.Tick() != c.to || sr.From != c.from || sr.Keyframe != c.keyframe || sr.Simulated != int(c.to-c.from) {
			t.Fatalf("%s: Seek(%d) at tick %d, %+v; want from %d keyframe %v", c.name, c.to, p.Tick(), sr, c.from, c.keyframe)
		}
		if c.to != first {
			if h := p.World().Hash(); h != hashes[c.to] {
				t.Fatalf("%s: tick %d hashes %016x, Verify saw %016x", c.name, c.to, h, hashes[c.to])
			}
			if h, _ := p.Hash(c.to); h != hashes[c.to] {
				t.Fatalf("%s: recorded hash of tick %d %016x, Verify saw %016x", c.name, c.to, h, hashes[c.to])
			}
		}
	}
	at := p.Tick()
	for _, to := range []uint32{last + 1, last + 1000, first - 1} {
		if first == 0 && to == first-1 {
			continue
		}
		if _, err := p.Seek(to); !errors.Is(err, replay.ErrSeek) || p.Tick() != at {
			t.Fatalf("Seek(%d) outside %d..%d: %v, now at tick %d (was %d)", to, first, last, err, p.Tick(), at)
		}
	}

	// Advance: a second at speed 2 is 120 ticks of 60 Hz; the end stops it.
	if _, err := p.Seek(k1); err != nil {
		t.Fatal(err)
	}
	p.SetSpeed(2)
	if n, err := p.Advance(time.Second); err != nil || n != 120 || p.Tick() != k1+120 || p.World().Hash() != hashes[k1+120] {
		t.Fatalf("Advance(1s) at speed 2: %d ticks, %v, at tick %d", n, err, p.Tick())
	}
	p.SetSpeed(0)
	if n, _ := p.Advance(time.Second); n != 0 {
		t.Fatalf("paused: %d ticks", n)
	}
	p.SetSpeed(1)
	p.SetStop(k1 + 150)
	if n, err := p.Advance(time.Hour); err != nil || n != 30 || p.Tick() != k1+150 {
		t.Fatalf("Advance(1h) with a stop at %d: %d ticks, %v, at tick %d", k1+150, n, err, p.Tick())
	}
	p.SetStop(0)
	if n, err := p.Advance(time.Hour); err != nil || !p.Done() || p.Tick() != last || n != int(last-k1-150) {
		t.Fatalf("Advance(1h): %d ticks, %v, at tick %d of %d", n, err, p.Tick(), last)
	}
	if p.World().Hash() != hashes[last] {
		t.Fatalf("last tick hashes %016x, Verify saw %016x", p.World().Hash(), hashes[last])
	}
}

// TestReplayPlayerDiverged: a tick recorded with a wrong hash stops a seek
// across it with ErrDiverged; a seek from a keyframe after it works.
func TestReplayPlayerDiverged(t *testing.T) {
	b := recordSand(t, 130)
	p, err := replay.Load[sand.Input](sand.New(32), bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Seek(150); !errors.Is(err, replay.ErrDiverged) || p.Tick() != 130 {
		t.Fatalf("Seek(150) across the bad tick 130: %v, at tick %d", err, p.Tick())
	}
	if _, err := p.Advance(time.Second); !errors.Is(err, replay.ErrDiverged) {
		t.Fatalf("Advance after the divergence: %v", err)
	}
	if sr, err := p.Seek(210); err != nil || p.Tick() != 210 || sr.From != 200 {
		t.Fatalf("Seek(210) from keyframe 200: %+v, %v, at tick %d", sr, err, p.Tick())
	}
}

// TestReplayPlayerTruncated: a replay cut inside its last frame loads up
// to it; seeking to the lost ticks is ErrSeek; another game's
// replay is ErrGame.
func TestReplayPlayerTruncated(t *testing.T) {
	b := recordSand(t, 0)
	whole, err := replay.Load[sand.Input](sand.New(32), bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	p, err := replay.Load[sand.Input](sand.New(32), bytes.NewReader(b[:len(b)-10]))
	if err != nil || !p.Truncated() || p.Last() >= whole.Last() {
		t.Fatalf("cut replay: %v, truncated=%v, last %d of %d", err, p != nil && p.Truncated(), p.Last(), whole.Last())
	}
	if _, err := p.Seek(whole.Last()); !errors.Is(err, replay.ErrSeek) {
		t.Fatalf("Seek to a lost tick: %v", err)
	}
	if _, err := p.Seek(p.Last()); err != nil {
		t.Fatalf("Seek to the last tick kept: %v", err)
	}
	if _, err := replay.Load[sand.Input](sand.New(64), bytes.NewReader(b)); !errors.Is(err, replay.ErrGame) {
		t.Fatalf("replay of a 32 grid loaded as a 64 grid: %v", err)
	}
}

// TestReplayPlayerClientRestart: a client's replay (no keyframes; a newer
// world loaded after a gap, as after a resync) plays across the gap from
// the newer world, seeks after it start there, and a seek into the gap is
// ErrSeek.
func TestReplayPlayerClientRestart(t *testing.T) {
	g := sand.New(16)
	_, w, err := game.NewWorld[sand.Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	it, err := inputs.NewType[sand.Input]()
	if err != nil {
		t.Fatal(err)
	}
	h := codec.ReplayHeader{Fingerprint: game.Fingerprint(it.Fingerprint(), w.Layout().Hash(), game.RateOf(g)),
		Layout: w.Layout().Hash(), TickRate: 60, Players: 2, InputSize: uint16(it.Size()), Recorder: codec.RecordedByClient}
	var buf bytes.Buffer
	rec := &replay.Recorder{Game: "sand", Open: func(codec.ReplayHeader) (io.Writer, error) { return &buf, nil }}
	present := []bool{true, true}
	rec.RecordStart(h, 0, w, []bool{false, false})
	hashes := map[uint32]uint64{}
	packed := make([]byte, 2*it.Size())
	for tick := uint32(1); tick <= 120; tick++ {
		tk := game.Tick[sand.Input]{Number: tick, Present: present,
			Inputs: []sand.Input{sand.Bot(0, tick), sand.Bot(1, tick)}}
		var events []game.Event
		if tick == 1 {
			events = []game.Event{{Kind: game.Join, Player: 0}, {Kind: game.Join, Player: 1}}
			tk.Events = events
		}
		g.Step(w, &tk)
		hashes[tick] = w.Hash()
		switch {
		case tick <= 50 || tick > 80:
			it.Pack(packed[:it.Size()], &tk.Inputs[0])
			it.Pack(packed[it.Size():], &tk.Inputs[1])
			rec.RecordTick(tick, events, packed, w.Hash(), nil)
		case tick == 80:
			rec.RecordStart(h, 80, w, present) // the client loaded a newer world
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := replay.Load[sand.Input](sand.New(16), bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if ks := p.Keyframes(); p.Last() != 120 || len(ks) != 2 || ks[1] != 80 {
		t.Fatalf("last %d, worlds %v; want 120 and [0 80]", p.Last(), ks)
	}
	if n, err := p.Advance(time.Hour); err != nil || p.Tick() != 120 || p.World().Hash() != hashes[120] {
		t.Fatalf("played across the gap: %d steps, %v, at tick %d", n, err, p.Tick())
	}
	for _, to := range []uint32{30, 100, 80} {
		if _, err := p.Seek(to); err != nil || p.World().Hash() != hashes[to] {
			t.Fatalf("Seek(%d): %v, at tick %d", to, err, p.Tick())
		}
	}
	if _, err := p.Seek(60); !errors.Is(err, replay.ErrSeek) || p.Tick() != 80 {
		t.Fatalf("Seek(60) into the gap: %v, at tick %d", err, p.Tick())
	}
}
