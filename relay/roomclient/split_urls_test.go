package roomclient

import (
	"slices"
	"testing"
)

// TestSplitURLs: a --relay list is cut at commas, each URL trimmed, empty
// entries dropped.
func TestSplitURLs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,", nil},
		{"ws://a/rooms", []string{"ws://a/rooms"}},
		{"ws://a/rooms, ws://b/rooms ,,ws://c/rooms", []string{"ws://a/rooms", "ws://b/rooms", "ws://c/rooms"}},
	} {
		if got := SplitURLs(c.in); !slices.Equal(got, c.want) {
			t.Errorf("SplitURLs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
