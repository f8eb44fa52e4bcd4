package roomdir

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
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
	rec, ok, _ := b.Lookup("AAAAAA", now)
	if !ok || rec.Key != "k1" || rec.Owner != a.Self() || rec.Ended {
		t.Fatalf("lookup at b: %+v, %v", rec, ok)
	}
	if err := b.Claim(Record{Code: "BBBBBB", Key: "k3"}, now); err != nil {
		t.Fatal(err)
	}
	a.Rekey("AAAAAA", "k1b") // its host rotated the key (issue 43)
	if rec, ok, _ := b.Lookup("AAAAAA", now); !ok || rec.Key != "k1b" || rec.Owner != a.Self() {
		t.Fatalf("rekeyed room at b: %+v, %v", rec, ok)
	}
	a.End("AAAAAA", now)
	a.Rekey("AAAAAA", "k1c") // an ended room keeps its key
	if rec, _, _ := b.Lookup("AAAAAA", now); rec.Key != "k1b" {
		t.Fatalf("an ended room rekeyed: %+v", rec)
	}
	if rec, ok, _ := b.Lookup("AAAAAA", now); !ok || !rec.Ended || rec.EndedAt.UnixMilli() != now.UnixMilli() {
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
		if _, err := a.Refresh([]Record{{Code: "CCCCCC", Key: "k4"}}); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := a.Lookup("BBBBBB", now); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an unrefreshed room did not expire")
		}
		time.Sleep(a.RefreshEvery())
	}
	if _, ok, _ := b.Lookup("CCCCCC", now); !ok {
		t.Fatal("a refreshed room expired")
	}
	if _, ok, _ := a.Lookup("AAAAAA", now); !ok {
		t.Fatal("an ended room was forgotten before Remember")
	}
	a.Remove("CCCCCC")
	if _, ok, _ := b.Lookup("CCCCCC", now); ok {
		t.Fatal("Remove left the room")
	}
	if _, err := NewRedis(ctx, "redis://127.0.0.1:1/0", RedisConfig{ConnectWait: 300 * time.Millisecond}); !errors.Is(err, ErrRedis) {
		t.Fatalf("no redis: %v, want ErrRedis", err)
	}
}

// TestRedisRecovers: a Redis that restarts empty under two directories
// that knew it: the first to touch it starts the recovery window, in
// which claims are refused and a missing code is "unavailable" (not no
// room) and nobody is taken for dead; a refresh writes the owner's rooms
// back, with their keys, at once; after the window the directory answers
// as before. A Redis that does not answer is "unavailable" too.
func TestRedisRecovers(t *testing.T) {
	rs := testutil.StartRedisServer(t)
	ctx := t.Context()
	cfg := RedisConfig{TTL: 15 * time.Second} // a recovery window of 5 s
	a, err := NewRedis(ctx, rs.URL, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewRedis(ctx, rs.URL, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	now := time.Now()
	room := Record{Code: "AAAAAA", Key: "k1"}
	for _, d := range []*Redis{a, b} {
		if _, err := d.Refresh(nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Claim(room, now); err != nil {
		t.Fatal(err)
	}
	rs.Close()
	if _, _, err := b.Lookup("AAAAAA", now); !errors.Is(err, roomproto.ErrUnavailable) {
		t.Fatalf("lookup with Redis down: %v, want ErrUnavailable", err)
	}
	if err := b.Claim(Record{Code: "BBBBBB"}, now); !errors.Is(err, roomproto.ErrUnavailable) {
		t.Fatalf("claim with Redis down: %v, want ErrUnavailable", err)
	}
	if err := rs.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := b.Claim(Record{Code: "AAAAAA", Key: "k2"}, now); !errors.Is(err, roomproto.ErrUnavailable) {
		t.Fatalf("claim of the live room's code after the restart: %v, want ErrUnavailable", err)
	}
	if _, ok, err := b.Lookup("AAAAAA", now); ok || !errors.Is(err, roomproto.ErrUnavailable) {
		t.Fatalf("lookup after the restart: %v %v, want ErrUnavailable", ok, err)
	}
	if _, ok := b.Alive([]string{a.Self()}); ok {
		t.Fatal("a relay's liveness trusted while the directory recovers")
	}
	if n, err := a.Refresh([]Record{room}); err != nil || n != 1 {
		t.Fatalf("refresh after the restart: %d rooms written back, %v; want 1", n, err)
	}
	if rec, ok, err := b.Lookup("AAAAAA", now); !ok || err != nil || rec.Key != "k1" || rec.Owner != a.Self() {
		t.Fatalf("the room after the owner's refresh: %+v %v %v", rec, ok, err)
	}
	if n, err := a.Refresh([]Record{room}); err != nil || n != 0 {
		t.Fatalf("second refresh: %d rooms written back, %v; want 0", n, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, b1 := b.Refresh(nil)
		err := b.Claim(Record{Code: "AAAAAA", Key: "k2"}, now)
		if errors.Is(err, roomproto.ErrCodeTaken) && b1 == nil {
			break
		}
		if !errors.Is(err, roomproto.ErrUnavailable) || time.Now().After(deadline) {
			t.Fatalf("claim of the live room's code: %v, want ErrUnavailable then ErrCodeTaken", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, ok, err := b.Lookup("CCCCCC", now); ok || err != nil {
		t.Fatalf("lookup of no room after the recovery: %v %v", ok, err)
	}
	if alive, ok := b.Alive([]string{a.Self(), "gone"}); !ok || !alive[0] || alive[1] {
		t.Fatalf("liveness after the recovery: %v %v", alive, ok)
	}
}
