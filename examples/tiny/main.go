// Command tiny is the smallest rewind game: a counter per player, played
// single-player through rewind.Play and Run. It exists to measure what a
// game that uses only the core links (docs/benchmarks.md, Dependencies).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// Input is what the player does in a tick.
type Input struct{ Add int8 }

type counter struct{ score world.Value[int32] }

func (c *counter) Register(s *world.Schema) error {
	c.score = world.AddValue[int32](s, "score")
	return s.Err()
}
func (c *counter) Setup(w *world.World) error { return nil }
func (c *counter) Step(w *world.World, t *rewind.Tick[Input]) {
	*c.score.Ptr(w) += int32(t.Inputs[0].Add)
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tiny:", err)
		os.Exit(1)
	}
}

// run plays the counter for a second and prints how many ticks the
// session verified.
func run(ctx context.Context, out io.Writer) error {
	s, err := rewind.Play[Input](&counter{}, rewind.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	s.SetInput(Input{Add: 1})
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := s.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintln(out, "verified", s.Stats().Verified)
	return nil
}
