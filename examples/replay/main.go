// Command replay records a short single-player match to a replay file in
// a temporary directory, then reads the file back twice: replay.Verify
// simulates every tick again and checks its hash against the recorded
// one, and replay.Load returns a player that seeks to a tick (from the
// nearest keyframe) for a view to draw.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/world"
)

// Input is what the player does in a tick: how much it adds.
type Input struct{ Add int8 }

// counter is the game: a score the player's inputs add to.
type counter struct{ score world.Value[int32] }

func (c *counter) Register(s *world.Schema) error {
	c.score = world.AddValue[int32](s, "score")
	return s.Err()
}

func (c *counter) Setup(w *world.World) error { return nil }

func (c *counter) Step(w *world.World, t *rewind.Tick[Input]) {
	*c.score.Ptr(w) += int32(t.Inputs[0].Add)
}

// playTime is how long the recorded match plays.
const playTime = time.Second

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
}

// run records a match into a file of a temporary directory, verifies it
// and seeks in it.
func run(ctx context.Context, out io.Writer) error {
	dir, err := os.MkdirTemp("", "rewind-replay-example")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "match.rwr")
	if err := record(ctx, path); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "recorded %s: %d bytes\n", filepath.Base(path), fi.Size())

	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := replay.Verify[Input](&counter{}, f, replay.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "verify: game=%s ticks=%d last_tick=%d verified=%t\n", res.Header.Game, res.Ticks, res.LastTick, res.Verified)
	if !res.Verified {
		return fmt.Errorf("the replay did not verify at tick %d: %s", res.FirstBad, res.Reason)
	}

	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	p, err := replay.Load[Input](&counter{}, f)
	if err != nil {
		return err
	}
	mid := (p.First() + p.Last()) / 2
	sr, err := p.Seek(mid)
	if err != nil {
		return err
	}
	recorded, _ := p.Hash(mid)
	if p.World().Hash() != recorded {
		return fmt.Errorf("tick %d hashed %016x after the seek, recorded %016x", mid, p.World().Hash(), recorded)
	}
	fmt.Fprintf(out, "seek: tick %d from tick %d (%d ticks simulated), hash %016x, recorded %016x\n",
		p.Tick(), sr.From, sr.Simulated, p.World().Hash(), recorded)
	return nil
}

// record plays the counter game single-player for playTime, its server
// recording every tick (and a keyframe every half second) into path.
func record(ctx context.Context, path string) error {
	rec := &replay.Recorder{
		Game:          "counter",
		KeyframeEvery: 30,
		Open:          func(replay.Header) (io.Writer, error) { return os.Create(path) },
	}
	s, err := rewind.Play[Input](&counter{}, rewind.Options{Server: rewind.ServerConfig{Record: rec}})
	if err != nil {
		return err
	}
	s.SetInputFunc(func(tick uint32) Input { return Input{Add: int8(tick % 5)} })
	ctx, cancel := context.WithTimeout(ctx, playTime)
	defer cancel()
	if err := s.Run(ctx); err != nil {
		s.Close()
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	return rec.Close() // the last ticks, and the file
}
