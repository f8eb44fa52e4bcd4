package roomdir

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testutil"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// TestRedisRoomDirectory: claims are exclusive across directories of one
// Redis, an ended room is remembered, a live room whose owner stops
// refreshing it expires within the TTL while a refreshed one stays.
func TestRedisRoomDirectory(t *testing.T) {
	url := testutil.StartRedis(t)
	ctx := t.Context()
	cfg := RedisConfig{TTL: 600 * time.Millisecond, Remember: time.Minute}
	a, err := NewRedis(ctx, url, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewRedis(ctx, url, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	now := time.Now()
	if err := a.Claim(Record{Code: "AAAAAA", Key: "k1"}, now); err != nil {
		t.Fatal(err)
	}
	if err := b.Claim(Record{Code: "AAAAAA", Key: "k2"}, now); !errors.Is(err, roomproto.ErrCodeTaken) {
		t.Fatalf("second claim: %v, want roomproto.ErrCodeTaken", err)
	}
	rec, ok := b.Lookup("AAAAAA", now)
	if !ok || rec.Key != "k1" || rec.Owner != a.Self() || rec.Ended {
		t.Fatalf("lookup at b: %+v, %v", rec, ok)
	}
	if err := b.Claim(Record{Code: "BBBBBB", Key: "k3"}, now); err != nil {
		t.Fatal(err)
	}
	a.End("AAAAAA", now)
	if rec, ok := b.Lookup("AAAAAA", now); !ok || !rec.Ended || rec.EndedAt.UnixMilli() != now.UnixMilli() {
		t.Fatalf("ended room: %+v, %v", rec, ok)
	}
	if err := b.Claim(Record{Code: "AAAAAA"}, now); !errors.Is(err, roomproto.ErrCodeTaken) {
		t.Fatalf("claim of a remembered ended code: %v", err)
	}
	// a refreshes CCCCCC; nobody refreshes BBBBBB (its relay died).
	if err := a.Claim(Record{Code: "CCCCCC", Key: "k4"}, now); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := a.Refresh([]string{"CCCCCC"}); err != nil {
			t.Fatal(err)
		}
		if _, ok := a.Lookup("BBBBBB", now); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an unrefreshed room did not expire")
		}
		time.Sleep(a.RefreshEvery())
	}
	if _, ok := b.Lookup("CCCCCC", now); !ok {
		t.Fatal("a refreshed room expired")
	}
	if _, ok := a.Lookup("AAAAAA", now); !ok {
		t.Fatal("an ended room was forgotten before Remember")
	}
	a.Remove("CCCCCC")
	if _, ok := b.Lookup("CCCCCC", now); ok {
		t.Fatal("Remove left the room")
	}
	if _, err := NewRedis(ctx, "redis://127.0.0.1:1/0", RedisConfig{ConnectWait: 300 * time.Millisecond}); !errors.Is(err, ErrRedis) {
		t.Fatalf("no redis: %v, want ErrRedis", err)
	}
}
