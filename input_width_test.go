package rewind_test

import (
	"strings"
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// wideIn is an input with a field whose width follows the platform.
type wideIn struct{ X int }

// wideGame plays wideIn; its world is one empty value.
type wideGame struct{}

func (wideGame) Register(s *world.Schema) error {
	world.AddValue[int32](s, "v")
	return s.Err()
}
func (wideGame) Setup(w *world.World) error                  { return nil }
func (wideGame) Step(w *world.World, t *rewind.Tick[wideIn]) {}

// TestPlayRefusesPlatformInt: a game whose input has an int field does not
// start; the error names the field and says what to use instead.
func TestPlayRefusesPlatformInt(t *testing.T) {
	s, err := rewind.Play[wideIn](wideGame{}, rewind.Options{})
	if err == nil {
		s.Close()
		t.Fatal("Play accepted an input with an int field")
	}
	for _, want := range []string{"wideIn.X", "int32 or int64"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to name %q", err, want)
		}
	}
}
