package roomdir

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// TestRedisList: List returns the live rooms of every relay, sorted, with
// their owners; an ended room is left out.
func TestRedisList(t *testing.T) {
	url := testutil.StartRedis(t)
	a, err := NewRedis(t.Context(), url, RedisConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewRedis(t.Context(), url, RedisConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	now := time.Now()
	for _, c := range []struct {
		d    *Redis
		code string
	}{{b, "CCCCCC"}, {a, "AAAAAA"}, {b, "BBBBBB"}} {
		if err := c.d.Claim(Record{Code: c.code, Key: "k"}, now); err != nil {
			t.Fatal(err)
		}
	}
	b.End("BBBBBB", now)
	recs, err := a.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Code != "AAAAAA" || recs[0].Owner != a.Self() || recs[1].Code != "CCCCCC" || recs[1].Owner != b.Self() {
		t.Fatalf("List = %+v", recs)
	}
}
