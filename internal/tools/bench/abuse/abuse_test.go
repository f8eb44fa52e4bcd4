package abuse

import (
	"context"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/internal/tools/attack"
)

// TestUnknown: a name of the suite is known, any other is not.
func TestUnknown(t *testing.T) {
	if n, bad := Unknown([]string{attack.All[0].Name, "nope"}); !bad || n != "nope" {
		t.Errorf("Unknown: %q, %v", n, bad)
	}
	if _, bad := Unknown([]string{attack.All[0].Name}); bad {
		t.Error("a suite's attack is unknown")
	}
}

// TestRun runs one short attack: one result, held, handed to OnResult.
func TestRun(t *testing.T) {
	testutil.SkipSockets(t)
	var got []attack.Result
	rs, err := Run(context.Background(), Config{Short: true, Attacks: []string{"big_frame"}, OnResult: func(r attack.Result) { got = append(got, r) }})
	if err != nil || len(rs) != 1 || len(got) != 1 || !strings.HasPrefix(rs[0].Line(), "attack=big_frame held=true ") {
		t.Fatalf("err %v, %d results, %d handed: %v", err, len(rs), len(got), rs)
	}
}

// TestKeysNameEveryAttack: the help's list of attacks is the suite's.
func TestKeysNameEveryAttack(t *testing.T) {
	for _, a := range attack.All {
		if !strings.Contains(Keys, a.Name) {
			t.Errorf("bench abuse -h does not name %s", a.Name)
		}
	}
}

// TestBroken: a result that did not hold, or could not run, is named; a
// held one is not.
func TestBroken(t *testing.T) {
	rs := []attack.Result{{Name: "a", Held: true}, {Name: "b"}, {Name: "c", Held: true, Err: context.Canceled}}
	if got := Broken(rs); len(got) != 2 || got[0] != "b" || got[1] != "c" {
		t.Errorf("Broken: %v, want [b c]", got)
	}
}
