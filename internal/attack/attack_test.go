package attack

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testutil"
)

// TestAttacksHold runs the short version of every attack of issue 15
// against real sockets on 127.0.0.1: each must hold.
func TestAttacksHold(t *testing.T) {
	testutil.SkipSockets(t)
	for _, a := range All {
		t.Run(a.Name, func(t *testing.T) {
			testutil.CheckGoroutines(t, 10*time.Second)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			r := a.Run(ctx, Config{Short: true})
			line := r.Line()
			t.Log(line)
			if !strings.HasPrefix(line, "attack="+a.Name+" held=") {
				t.Fatalf("line %q", line)
			}
			if r.Err != nil || !r.Held {
				t.Errorf("broke: %s", line)
			}
		})
	}
}

func TestResultLine(t *testing.T) {
	r := Result{Name: "x", Held: true}
	r.add("a", 1)
	r.add("b", 2.5)
	r.add("c", "two words")
	if got := r.Line(); got != "attack=x held=true a=1 b=2.5 c=two_words" {
		t.Fatalf("%q", got)
	}
	r.Held = false
	if got := r.Line(); !strings.HasPrefix(got, "attack=x held=false") {
		t.Fatalf("%q", got)
	}
}
