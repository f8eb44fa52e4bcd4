package inputs

import (
	"testing"

	"github.com/rewindnet/rewind/internal/testing/testinput"
)

// testInput is the input the tests pack: every kind of field.
type testInput = testinput.Input

func testInputs(t testing.TB, n int) (*Type[testInput], [][]byte) {
	it, err := NewType[testInput]()
	if err != nil {
		t.Fatal(err)
	}
	out, err := testinput.Packed(n, func(v *testInput) ([]byte, error) {
		p := it.Pack(make([]byte, it.Size()), v)
		return p, it.Sanitize(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	return it, out
}
