// Command tiny is the smallest rewind game: a counter per player, played
// single-player through rewind.Play and Run. It exists to measure what a
// game that uses only the core links (docs/benchmarks.md, Dependencies).
package main

import (
	"context"
	"fmt"
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
	s, err := rewind.Play[Input](&counter{}, rewind.Options{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	s.SetInput(Input{Add: 1})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.Run(ctx)
	fmt.Println("verified", s.Stats().Verified)
}
